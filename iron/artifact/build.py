"""``iron.build``: fuse, key, lower (or compile with aiecc), package, cache.

Steps: resolve options -> :func:`iron.fuse.fusion.fuse` -> cache key
(:mod:`iron.artifact.cache`) -> on a hit return at once; on a miss, under the
key's file lock: lower every kernel to a TXN binary, write one payload per
device (the built-in PDI), the manifest and the ELF; or, when aiecc and the
``aie`` package are present, compile through aiecc and add iron's sections to
its ELF (:mod:`iron.artifact.aiecc`).
"""

from __future__ import annotations

import json

from iron import options as opts_mod
from iron import progress
from iron.artifact import aiecc, cache, elf
from iron.artifact import toolchain as toolchain_mod
from iron.artifact.artifact import META_SCHEMA, Artifact, memref_json
from iron.artifact.pdi import payload_for
from iron.errors import IronError
from iron.fuse.fusion import WRAPPER_DEVICE, FusedModule, fuse
from iron.lower import npu
from iron.mlir import txn
from iron.lower.materialize import kernel_ops
from iron.lower.verify import check_wiring
from iron.mlir.printer import print_device, print_module
from iron.target.geometry import device_columns, get_target

#: Negative controls: reproduce a known bug on purpose (tests only).
EMULATED_BUGS = (None, "own-arg-patch", "stale-trace-task")


def build(
    op_or_sequence,
    *,
    trace: bool | None = None,
    trace_size: int | None = None,
    ntiles: int | None = None,
    events=None,
    select=None,
    trace_mode: str | None = None,
    trace_sizes=None,
    trace_start: str | None = None,
    trace_stop: str | None = None,
    trace_units=None,
    trace_ports=None,
    target: str = "npu2",
    dispatch: str = "auto",
    cache_dir=None,
    sources: bool | None = None,
    emulate_bug: str | None = None,
) -> Artifact:
    """Build (or fetch from the cache) the artifact of an operator or a Sequence.

    ``trace=None`` follows the environment (``IRON_TRACE_SIZE`` ...); explicit
    arguments (``trace_size``, ``ntiles``, ``events``, ``select``, ``trace_mode``:
    ``event-time`` or ``event-pc`` for core units, ``trace_sizes`` per call
    site, ``trace_start`` / ``trace_stop`` events, ``trace_units`` at chosen tiles, ``trace_ports`` the
    stream-switch port each PORT_*_n slot watches) win
    (:func:`iron.options.resolve` documents their forms). ``sources`` embeds the design
    sources (``None``: ``IRON_DEBUG_SOURCES``). ``emulate_bug`` reproduces a
    fixed bug for negative-control tests: ``"own-arg-patch"`` (callee patches
    not translated to the caller's buffers) or ``"stale-trace-task"`` (no
    reconfiguration between consecutive traced calls of one device).
    """
    if emulate_bug not in EMULATED_BUGS:
        raise IronError(f"emulate_bug={emulate_bug!r}; accepted: {', '.join(map(repr, EMULATED_BUGS))}")
    options = opts_mod.resolve(
        trace, size=trace_size, ntiles=ntiles, events=events, select=select, trace_mode=trace_mode,
        sizes=trace_sizes, start=trace_start, stop=trace_stop, units=trace_units,
        ports=trace_ports,
    )  # fmt: skip
    with_sources = opts_mod.debug_sources(sources)
    tgt = get_target(target)
    use_aiecc = aiecc.available()
    if use_aiecc:
        toolchain_mod.require_supported()  # one clear message for an mlir-aie too old for iron
    toolchain = aiecc.toolchain_identity() if use_aiecc else cache.builtin_toolchain()

    fm = fuse(
        op_or_sequence, tgt, options, dispatch, reset_between_same_device=(emulate_bug != "stale-trace-task")
    )
    mlir = print_module(fm.module)
    key = cache.cache_key(
        mlir=mlir,
        trace_options=fm.options.key(),
        target=tgt.name,
        dispatch=fm.dispatch,
        toolchain=toolchain,
        iron_version=cache.iron_version(),
        emulate_bug=emulate_bug,
        sources=with_sources,
    )
    store = cache.Cache(cache_dir)
    path = store.path(fm.name, options.size, key)
    hit = store.lookup(path, key, report=False)
    if hit is not None:
        return hit

    with progress.status(f"building {path.name}") as status:
        status.step("waiting for a concurrent build")
        with store.lock(key):
            hit = store.lookup(path, key)  # another process may have built it meanwhile
            if hit is not None:
                return hit
            ctx = _Context(fm, key, toolchain, mlir, emulate_bug, with_sources, status, store.dir)
            data = aiecc.build_elf(ctx) if use_aiecc else builtin_elf(ctx)
            status.step("writing")
            store.store(path, data)
            art = Artifact.open(path)  # under the lock: a concurrent `cache clear` waits for it
    return art


class _Context:
    """What the back ends need to produce an artifact."""

    def __init__(self, fm: FusedModule, key, toolchain, mlir, emulate_bug, with_sources, status, cache_dir):
        self.fm = fm
        self.cache_dir = cache_dir  # compiled kernel objects live under it too
        self.key = key
        self.toolchain = toolchain
        self.mlir = mlir
        self.translate_patches = emulate_bug != "own-arg-patch"
        self.with_sources = with_sources
        self.status = status
        devices = [d.symbol for d in fm.module.devices if d.symbol != WRAPPER_DEVICE]
        self.pdi_ids = {sym: i + 1 for i, sym in enumerate(devices)}  # 0 left unused


def pdi_sections(ctx: _Context) -> tuple[dict[str, bytes], dict]:
    """Sections and meta entries of every device's built-in PDI payload."""
    fm = ctx.fm
    sections, meta = {}, {}
    for sym, pid in ctx.pdi_ids.items():
        name = elf.dev_section(pid)
        sections[name] = payload_for(sym, fm.designs.get(sym), fm.operators.get(sym)).to_json().encode()
        meta[str(pid)] = {"device": sym, "section": name}
    return sections, meta


def source_texts(ctx: _Context) -> dict[str, str]:
    """Design sources under synthetic names (never paths): fused + one per design."""
    if not ctx.with_sources:
        return {}
    texts = {"fused.mlir": ctx.mlir}
    for sym, design in ctx.fm.designs.items():
        texts[f"{sym}.mlir"] = print_device(design.device)
    return texts


def meta_json(
    ctx: _Context, kernels: list[dict], pdis: dict, sources: dict, backend: str, core_elfs: dict | None = None
) -> bytes:
    """``.iron.meta``; ``core_elfs``: section -> synthetic name of each embedded core ELF."""
    fm = ctx.fm
    meta = {
        "schema": META_SCHEMA,
        "name": fm.name,
        "target": fm.target.name,
        "dispatch": fm.dispatch,
        "backend": backend,
        "kernels": kernels,
        "schedule": [{"kernel": k.name, "args": args_json(k.args)} for k in fm.schedule],
        "pdis": pdis,
        "buffers": [{"name": n, **memref_json(t)} for n, t in fm.buffers.items()],  # in argument order
        "inputs": fm.inputs,
        "outputs": fm.outputs,
        "trace_options": fm.options.key(),
        "toolchain": ctx.toolchain,
        "iron_version": cache.iron_version(),
        "key": ctx.key,
        "sources": sources,
        **({"core_elfs": core_elfs} if core_elfs else {}),
    }
    return json.dumps(meta, sort_keys=True, indent=1).encode()


def args_json(args) -> list[dict]:
    return [{"buffer": a.buffer, **memref_json(a.type), "offset": a.offset} for a in args]


def kernel_entry(kernel, section: str | None) -> dict:
    return {
        "name": kernel.name,
        "device": kernel.device,
        "sequence": kernel.sequence,
        "args": args_json(kernel.args),
        "section": section,
    }


def manifest_json(ctx: _Context, sources: dict[str, str]) -> bytes | None:
    if ctx.fm.manifest is None:
        return None
    manifest = ctx.fm.manifest
    if sources:  # captures copy the manifest: let them carry the sources too
        from dataclasses import replace

        manifest = replace(manifest, sources=dict(sources))
    return manifest.to_json().encode()


def builtin_elf(ctx: _Context) -> bytes:
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
        sections[elf.code_section(i)] = txn.encode(txn.header_for(fm.target.name, columns), txn_ops)
        kernels.append(kernel_entry(kernel, elf.code_section(i)))
    dev_sections, pdis = pdi_sections(ctx)
    sections.update(dev_sections)
    texts = source_texts(ctx)
    src_names = {}
    for i, (name, text) in enumerate(texts.items()):
        sections[elf.src_section(i)] = text.encode()
        src_names[elf.src_section(i)] = name
    manifest = manifest_json(ctx, texts)
    if manifest is not None:
        sections[elf.TRACE] = manifest
    meta = meta_json(ctx, kernels, pdis, src_names, "builtin")
    return elf.write_elf({elf.META: meta, **sections})
