//! Reading and merging Claude Code settings files (not built yet).
