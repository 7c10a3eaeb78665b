"""bundle_runner — Tessera's StableHLO bundles compiled and run by IREE and XLA (a deployment
reference, not the engine). See README.md beside this file."""
