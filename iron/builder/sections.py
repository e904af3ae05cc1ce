"""The iron sections both back ends write (built-in lowering and aiecc).

:mod:`iron.builder.build` makes a :class:`Context` for one build and hands it to
its back end (:func:`iron.builder.build.builtin_elf` or
:func:`iron.builder.aiecc.build_elf`); each writes its own control code and
takes the rest from here: every device's PDI payload, the design sources, the
manifest and ``.iron.meta``, laid out as :mod:`iron.artifact.schema` says.
"""

from __future__ import annotations

from dataclasses import dataclass

from iron.builder import aiecc_input, cache
from iron.artifact import schema
from iron.artifact.pdi import payload_for
from iron.fuse.fusion import WRAPPER_DEVICE, FusedModule
from iron.mlir import ir
from iron.mlir.printer import print_device
from iron.operators import payload_identity
from iron.target.mlir_eras import TODAY


class Context:
    """What the back ends need to produce an artifact."""

    def __init__(
        self,
        fm: FusedModule,
        key,
        toolchain,
        mlir,
        translate_patches,
        with_sources,
        status,
        cache_dir,
        era=TODAY,
    ):
        self.fm = fm
        self.cache_dir = cache_dir  # compiled kernel objects live under it too
        self.key = key
        self.toolchain = toolchain
        self.mlir = mlir
        self.translate_patches = translate_patches  # False only for a negative control
        self.with_sources = with_sources
        self.status = status
        self.pdi_ids = pdi_ids(fm.module)
        self.era = era  # the mlir-aie era every printed text of this build is spelled in


def pdi_ids(module: ir.Module) -> dict[str, int]:
    """PDI id of every device that has a PDI (all but the wrapper), in module order from 1
    (0 left unused); ``aiex.npu.load_pdi`` lowers to these ids."""
    devices = [d.symbol for d in module.devices if d.symbol != WRAPPER_DEVICE]
    return {sym: i + 1 for i, sym in enumerate(devices)}


def pdi_sections(ctx: Context) -> tuple[dict[str, bytes], dict]:
    """Sections and meta entries of every device's built-in PDI payload."""
    fm = ctx.fm
    sections, meta = {}, {}
    for sym, pid in ctx.pdi_ids.items():
        name = schema.dev_section(pid)
        op = fm.operators.get(sym)
        operator, params = payload_identity(op) if op is not None else (None, {})
        sections[name] = payload_for(sym, fm.designs.get(sym), operator, params).to_json().encode()
        meta[str(pid)] = {"device": sym, "section": name}
    return sections, meta


#: The source name of the module iron hands aiecc (:mod:`iron.builder.aiecc_input`).
AIECC_INPUT = "aiecc.mlir"


def source_texts(ctx: Context) -> dict[str, str]:
    """Design sources under synthetic names (never paths): ``fused.mlir`` (the fused module,
    as the cache key reads it), one per design, and :data:`AIECC_INPUT`, the materialized module
    iron hands aiecc (left out where aiecc could not take it), all in the build's mlir-aie era."""
    if not ctx.with_sources:
        return {}
    texts = {"fused.mlir": ctx.mlir}
    for sym, design in ctx.fm.designs.items():
        texts[f"{sym}.mlir"] = print_device(design.device, era=ctx.era)
    try:
        texts[AIECC_INPUT] = aiecc_input.input_text(ctx.fm, ctx.translate_patches, ctx.era)
    except aiecc_input.AieccInputError:
        pass  # a built-in build aiecc could not compile: there is no such module to carry
    return texts


def meta_json(
    ctx: Context, kernels: list[dict], pdis: dict, sources: dict, backend: str, core_elfs: dict | None = None
) -> bytes:
    """``.iron.meta`` of this build (:func:`iron.artifact.schema.meta_json`)."""
    fm = ctx.fm
    return schema.meta_json(
        name=fm.name,
        target=fm.target.name,
        dispatch=fm.dispatch,
        backend=backend,
        kernels=kernels,
        schedule=fm.schedule,
        pdis=pdis,
        buffers=fm.buffers,
        inputs=fm.inputs,
        outputs=fm.outputs,
        trace_options=fm.trace_key(),
        toolchain=ctx.toolchain,
        iron_version=cache.iron_version(),
        key=ctx.key,
        sources=sources,
        core_elfs=core_elfs,
    )


def manifest_json(ctx: Context, sources: dict[str, str]) -> bytes | None:
    """The ``.iron.trace`` manifest (None: untraced), carrying the design ``sources`` when embedded."""
    if ctx.fm.manifest is None:
        return None
    manifest = ctx.fm.manifest
    if sources:  # captures copy the manifest: let them carry the sources too
        manifest = manifest.replace(sources=dict(sources))
    return manifest.to_json().encode()


@dataclass
class IronSections:
    """The sections both back ends take from here, and the meta entries naming them."""

    devices: dict[str, bytes]  # every device's built-in PDI payload (:func:`pdi_sections`)
    pdis: dict  # their meta entries
    sources: dict[str, bytes]  # the design sources (when embedded), then the manifest (when traced)
    source_names: dict[str, str]  # source section -> synthetic name

    @classmethod
    def of(cls, ctx: Context) -> "IronSections":
        """This build's PDI payloads, design sources and manifest, in the order the ELF lists them."""
        devices, pdis = pdi_sections(ctx)
        texts = source_texts(ctx)
        sources: dict[str, bytes] = {}
        names = {}
        for i, (name, text) in enumerate(texts.items()):
            sources[schema.src_section(i)] = text.encode()
            names[schema.src_section(i)] = name
        manifest = manifest_json(ctx, texts)
        if manifest is not None:
            sources[schema.TRACE] = manifest
        return cls(devices, pdis, sources, names)

    def meta(self, ctx: Context, kernels: list[dict], backend: str, core_elfs: dict | None = None) -> bytes:
        """``.iron.meta`` naming these sections (:func:`meta_json`)."""
        return meta_json(ctx, kernels, self.pdis, self.source_names, backend, core_elfs)
