"""``iron.build``: fuse, key, lower (or compile with aiecc), package, cache.

Steps: :func:`iron.fuse.fusion.fuse` with the resolved options -> cache key
(:mod:`iron.builder.cache`) -> on a hit return at once; on a miss, under the
key's file lock: lower every kernel to a TXN binary, write one payload per
device (the built-in PDI), the manifest and the ELF (``backend="builtin"``); or
(``backend="aiecc"``) check aiecc's prerequisites, compile through aiecc and keep
its output byte for byte beside iron's sections (:mod:`iron.builder.aiecc`).
Which back end ``auto`` means on this machine is decided in one place,
:func:`iron.machine`.
"""

from __future__ import annotations

import math
import warnings

from iron import options as opts_mod
from iron import progress
from iron.builder import aiecc, cache
from iron.artifact import elf, schema
from iron.builder import toolchain as toolchain_mod
from iron.artifact.schema import Artifact, kernel_entry
from iron.builder.sections import Context, IronSections
from iron.errors import IronError
from iron.fuse.fusion import fuse
from iron.options import TraceOptions
from iron.lower import npu
from iron.mlir.check import check_module
from iron.mlir import txn_codec
from iron.mlir.ir import ELEMENT_BYTES
from iron.lower.materialize import kernel_ops
from iron.lower.verify import check_wiring
from iron.mlir.printer import print_module
from iron.target.geometry import device_columns, get_target
from iron.target.mlir_eras import TODAY, Era

#: The fixed bugs a test build may reproduce on purpose (negative controls, iron/tests/bugs.py):
#: callee trace patches left untranslated; no reconfiguration between consecutive traced
#: calls of one device (``iron.fuse.fusion._RESET_BETWEEN_SAME_DEVICE``).
OWN_ARG_PATCH = "own-arg-patch"
STALE_TRACE_TASK = "stale-trace-task"
EMULATED_BUGS = (OWN_ARG_PATCH, STALE_TRACE_TASK)
#: One of EMULATED_BUGS, or None. Only tests set it. It enters the cache key, so such a build
#: never shares an entry with a correct one.
_EMULATED_BUG: str | None = None


def build(
    op_or_sequence,
    *,
    options: TraceOptions | None = None,
    target: str = "npu2",
    dispatch: str = "auto",
    cache_dir=None,
    sources: bool | None = None,
    backend: str = "builtin",
) -> Artifact:
    """Build (or fetch from the cache) the artifact of an operator or a Sequence.

    ``options``: resolved trace options (None: untraced); :func:`iron.build` makes
    them from its keywords and the environment (:func:`iron.options.from_build_kwargs`).
    ``sources`` embeds the design sources (``None``: ``IRON_DEBUG_SOURCES``).
    ``backend``: ``"builtin"`` (iron's lowering; sim runs it) or ``"aiecc"`` (mlir-aie's
    toolchain; an NPU runs it): :func:`iron.machine` resolves ``"auto"``.
    """
    options = options or TraceOptions()
    with_sources = opts_mod.debug_sources(sources)
    tgt = get_target(target)
    if backend not in ("builtin", "aiecc"):
        raise IronError(f"backend={backend!r}; accepted here: builtin, aiecc (iron.machine resolves 'auto')")
    use_aiecc = backend == "aiecc"
    fm = fuse(op_or_sequence, tgt, options, dispatch)
    check_module(fm.module, fm.name)  # a design its device cannot hold is never lowered or cached
    _check_buffers(fm)
    if use_aiecc:  # each missing piece one clear message, before any work
        toolchain_mod.require_toolchain(fm.dispatch)
    toolchain = aiecc.toolchain_identity() if use_aiecc else cache.builtin_toolchain()

    era = printed_era(use_aiecc, with_sources)
    mlir = print_module(fm.module, era)
    key = _cache_key(fm, mlir, toolchain, with_sources, backend)
    store = cache.Cache(cache_dir)
    path = store.path(fm.name, options.size, key)
    expect = _expected_meta(fm, toolchain)
    hit = store.lookup(path, key, report=False, expect=expect)
    if hit is not None:
        return hit

    with progress.status(f"building {path.name}") as status:
        status.step("waiting for a concurrent build")
        with store.lock(key):
            hit = store.lookup(path, key, expect=expect)  # another process may have built it meanwhile
            if hit is not None:
                return hit
            translate = _EMULATED_BUG != OWN_ARG_PATCH
            ctx = Context(fm, key, toolchain, mlir, translate, with_sources, status, store.dir, era)
            data = aiecc.build_elf(ctx) if use_aiecc else builtin_elf(ctx)
            status.step("writing")
            store.store(path, data)
            art = Artifact.open(path)  # under the lock: a concurrent `cache clear` waits for it
    return art


def _check_buffers(fm) -> None:
    """Every host buffer fits what an artifact may declare (``schema.MAX_BUFFER_BYTES``, what
    :meth:`Artifact.open` accepts): checked before building, so no entry is stored that the
    cache could not read back."""
    for name, typ in fm.buffers.items():
        nbytes = math.prod(typ.shape) * ELEMENT_BYTES[typ.dtype]  # Python ints: no overflow
        if len(typ.shape) > schema.MAX_RANK or nbytes > schema.MAX_BUFFER_BYTES:
            raise IronError(
                f"{fm.name}: buffer {name!r} is memref<{'x'.join(map(str, typ.shape))}x{typ.dtype}> "
                f"({nbytes} bytes, rank {len(typ.shape)}); accepted: at most "
                f"{schema.MAX_BUFFER_BYTES} bytes (what one shim BD can move) and rank {schema.MAX_RANK}"
            )


def _expected_meta(fm, toolchain: str) -> dict:
    """What a cached entry of this build must describe (:meth:`Cache.lookup` ``expect``)."""
    return {
        "name": fm.name,
        "target": fm.target.name,
        "dispatch": fm.dispatch,
        "inputs": list(fm.inputs),
        "outputs": list(fm.outputs),
        "buffers": dict(fm.buffers),
        "toolchain": toolchain,
    }


def printed_era(use_aiecc: bool, with_sources: bool) -> Era:
    """The mlir-aie era this build prints (:mod:`iron.target.mlir_eras`): what the installed
    mlir-aie reads (:func:`iron.builder.toolchain.era`) when aiecc compiles the text or the
    artifact carries it (``sources``: a user hands it to that install); else today's forms. A
    built-in build whose installed ``aie-opt`` cannot say prints today's forms and warns."""
    if use_aiecc:
        return toolchain_mod.era()
    if not with_sources:
        return TODAY
    try:
        return toolchain_mod.era()
    except toolchain_mod.ToolchainError as exc:
        warnings.warn(f"iron: sources are printed in today's mlir-aie forms: {exc}", stacklevel=3)
        return TODAY


def _cache_key(fm, mlir: str, toolchain: str, with_sources: bool, backend: str) -> str:
    """The cache key of this build: everything its artifact's bytes depend on."""
    return cache.cache_key(
        mlir=mlir,
        trace_options=fm.trace_key(),
        target=fm.target.name,
        dispatch=fm.dispatch,
        toolchain=toolchain,
        iron_version=cache.iron_version(),
        sources=with_sources,
        negative_control=_EMULATED_BUG,
        backend=backend,
    )


def builtin_elf(ctx: Context) -> bytes:
    """The artifact bytes of iron's built-in lowering."""
    fm = ctx.fm
    sections: dict[str, bytes] = {}
    kernels = []
    for i, kernel in enumerate(fm.kernels):
        ctx.status.step(f"lowering {kernel.name}")
        ops = kernel_ops(fm, kernel, translate_patches=ctx.translate_patches)
        if ctx.translate_patches:  # the negative control keeps the bug on purpose
            check_wiring(ops, fm.manifest, kernel.name)
        txn_ops = npu.lower_ops(ops, ctx.pdi_ids, fm.target.name)
        columns = device_columns(fm.module.device(kernel.device).target)
        sections[schema.code_section(i)] = txn_codec.encode(
            txn_codec.header_for(fm.target.name, columns), txn_ops
        )
        kernels.append(kernel_entry(kernel, schema.code_section(i)))
    own = IronSections.of(ctx)
    sections.update(own.devices)
    sections.update(own.sources)
    return elf.write_elf({schema.META: own.meta(ctx, kernels, "builtin"), **sections})
