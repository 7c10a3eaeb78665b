/* portable.h — a bundle's StableHLO portable artifacts (`tessera export --portable`).
 *
 * Beside each module X.mlir the exporter writes X.mlirbc: the module serialized by the official
 * StableHLO implementation as a portable artifact (VHLO bytecode) at TS_PORTABLE_TARGET, the
 * version a consumer must at least read. Tessera does not link StableHLO, so the artifacts are
 * written by a Python that imports jaxlib (which ships the official bindings; scripts/install-deps
 * makes one in .venv): the C side passes module paths, the Python serializes, nothing else. The
 * manifest's `portable` object records the target, the serializer's own StableHLO version and each
 * artifact's SHA-256; the identity covers that object, and ts_portable_check refuses a bundle whose
 * artifacts were changed or removed. tools/stablehlo_check.py checks each artifact deserializes to
 * its module.
 */
#ifndef TS_BUNDLE_PORTABLE_H
#define TS_BUNDLE_PORTABLE_H

#include "bundle/manifest.h"

#define TS_PORTABLE_TARGET "1.0.0"

/* Serializes every module of `m` (already written under bundle_dir) with `python`, then fills
 * m->portable. The error carries the Python's last line of output. */
ts_status ts_portable_write(const char *bundle_dir, const char *python, ts_manifest *m, ts_error *err);
/* For a manifest with a portable object: every artifact is present and has its recorded digest. */
ts_status ts_portable_check(const char *bundle_dir, const ts_manifest *m, ts_error *err);
/* "c32/prefill.mlir" → "c32/prefill.mlirbc" */
void ts_portable_file(const char *module_file, char *out, size_t cap);

#endif
