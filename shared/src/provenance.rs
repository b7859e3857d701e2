//! Interrupt provenance: sidecar events, runtime marks, verdicts, ledger relabel (not built yet).
