"""The contracts the build side writes and the runtime and read side read: the trace manifest
(manifest), the artifact's records and section names (schema), its ELF container (elf) and
sim's stand-in for a PDI (pdi). They import only base, target and mlir."""
