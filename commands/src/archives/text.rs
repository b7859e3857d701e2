//! `archives restore` in words (also `restore --deleted`, for each session): each file written,
//! left out or left as it was.

use std::fmt::Write as _;

use super::restore::RestoreOutcome;
use crate::output::Emit;
use crate::snapshots::passed_over::PassedOver;

/// What `restore` wrote (from which generation, passing over which newer ones and why, and
/// where each replaced file is kept), what it left out, and how to continue the session.
impl Emit for RestoreOutcome {
    fn text(&self) -> String {
        let from = self.snapshot.as_deref().map_or_else(
            || "as kept now".to_owned(),
            |name| format!("as snapshot {name} recorded it"),
        );
        let mut text = format!("restored session {} {from}:\n", self.session_id);
        restored_text(&mut text, self, true);
        let _ = writeln!(
            text,
            "continue it from its project folder with: claude --resume {}",
            self.session_id
        );
        text
    }
}

/// Each file `restore` wrote, each sub-agent's it left out and each it left as it was; with
/// `details`, the generations passed over and why, and where each replaced file is kept.
pub fn restored_text(text: &mut String, outcome: &RestoreOutcome, details: bool) {
    for file in &outcome.files {
        let generation = file
            .generation
            .map(|generation| format!(", generation {generation}"))
            .unwrap_or_default();
        let part = if file.part {
            ", an earlier part of the session, in its own project folder"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "  {} ({} bytes{generation}{part})",
            file.path.display(),
            file.size
        );
        for passed in file.passed_over.iter().filter(|_| details) {
            let _ = writeln!(text, "    passed over {passed}");
        }
        match &file.replaced_kept_at {
            _ if !file.replaced || !details => {}
            Some(kept_at) => {
                let _ = writeln!(
                    text,
                    "    replaced; the file that was there is kept in {}",
                    kept_at.display()
                );
            }
            None => text.push_str("    replaced a symbolic link (not followed)\n"),
        }
    }
    for skipped in &outcome.skipped {
        let reasons = details.then(|| format!(" ({})", PassedOver::list(&skipped.passed_over)));
        let _ = writeln!(
            text,
            "  left out {}: no generation of it reads back whole{}",
            skipped.name,
            reasons.unwrap_or_default()
        );
    }
    for path in &outcome.left_existing {
        let _ = writeln!(text, "  left as it is (already there): {}", path.display());
    }
}
