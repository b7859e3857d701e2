//! Reading Claude Code transcripts: records, incremental cursor, session files (not built yet).
