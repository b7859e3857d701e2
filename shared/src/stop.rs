//! The stop hook's work (not built yet).

use anyhow::Result;

use crate::hook_runner::HookContext;

/// Handles one payload.
pub fn handle(_context: &HookContext) -> Result<()> {
    Ok(())
}
