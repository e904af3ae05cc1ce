"""Limits of the xclbin flow (container, driver, kernel arguments): the one table.

Sources: XRT ``src/runtime_src/core/include/xrt/detail/xclbin.h`` (``ip_data``:
``ps_kernel.m_kernel_id`` 12 bits, ``m_name`` 64 bytes), mlir-aie's aiecc
(``--xclbin-kernel-id`` default 0x901; amd/IRON numbers its i-th kernel 0x901 + i),
the amdxdna driver (``XCLBIN_MAX_NUM_PDIS`` in ``amdxdna_xclbin.c``, read in one
driver version only) and docs/design.md's host-buffer figure for aiecc's xclbin flow.
"""

from __future__ import annotations

#: aiecc's default ``--xclbin-kernel-id``: the first kernel's id.
XCLBIN_KERNEL_ID_BASE = 0x901
#: Largest PS kernel id the xclbin stores (12 bits).
XCLBIN_KERNEL_ID_MAX = 0xFFF
#: ``ip_layout`` holds ``<kernel>:<instance>`` in 64 bytes with the NUL; iron uses one
#: string for both, so each gets 31.
XCLBIN_NAME_MAX = 31
#: PDIs per registered xclbin the amdxdna driver accepts: more only warns.
XCLBIN_MAX_PDIS = 16
#: Host buffers one kernel may bind: docs/design.md's figure for aiecc's xclbin flow (current
#: mlir-aie sources show no such cap of their own; docs/concepts.md says what is known).
MAX_HOST_BUFFERS = 16
#: An xclbin (separate-dispatch) kernel's host buffers start at argument 3, after the
#: opcode, the instruction buffer and its word count (mlir-aie ``test.cpp`` / amd/IRON's
#: ``kernel(opcode, bo_instr, instr_size, *buffers)`` calls).
XCLBIN_ARG_OFFSET = 3
