//! `install` and `uninstall` on one settings file: merge our handlers in, or take exactly them
//! out, with a backup, an atomic write and the ownership record kept in step.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::{SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::backup::back_up;
use super::diff::unified_diff;
use super::handlers::{OwnedHandler, is_ctxhooks_command, planned_handlers};
use super::merge::{
    add_handler, contains_handler, drop_emptied_containers, handlers, remove_handler,
};
use super::ownership::{InstallsFile, PriorState};
use super::status_line::{
    StatusLineAction, StatusLineOutcome, StatusLinePlan, compose_advice, status_line_value,
};
use crate::settings::document::{SettingsDocument, parse_settings, read_settings_bytes};
use crate::settings::write::write_settings;
use ctxhooks_shared::hook::event::HookEvent;
use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::platform::private;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::StateDir;

/// Which of the two commands ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// `ctxhooks install`.
    #[default]
    Install,
    /// `ctxhooks uninstall`.
    Uninstall,
}

/// What `install` or `uninstall` did (or, with `dry_run`, would do) to one settings file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    /// Install or uninstall.
    pub action: Action,
    pub path: PathBuf,
    /// Whether the file was (or would be) changed.
    pub changed: bool,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// Handlers added.
    pub added: Vec<OwnedHandler>,
    /// Handlers removed.
    pub removed: Vec<OwnedHandler>,
    /// The backup of the file's previous bytes made by this run, if any.
    pub backup: Option<PathBuf>,
    /// How the file is (or would be) changed.
    pub write: WriteKind,
    /// A unified-style diff of the change (empty when nothing changes).
    pub diff: String,
    /// What was done about the status line (`install --statusline`, or one recorded earlier).
    pub status_line: Option<StatusLineOutcome>,
    /// Things worth telling the user.
    pub notes: Vec<String>,
}

/// How a settings file is changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// Not at all.
    #[default]
    None,
    /// Rewritten with our handlers added or removed, in the file's own style.
    Merged,
    /// Uninstall only: the file's bytes from before the first install were written back.
    RestoredOriginal,
    /// Uninstall only: the file did not exist before the first install and was deleted.
    Deleted,
}

/// What `install` is asked to do.
#[derive(Debug, Clone)]
pub struct InstallRequest<'a> {
    /// The settings file, an absolute path (see `links::resolve_links`).
    pub settings_path: &'a Path,
    /// The folder of the hook binaries to register.
    pub binaries_dir: &'a Path,
    /// Events the user's Claude Code does not know: left out (handlers recorded for them
    /// earlier are removed).
    pub omitted: &'a [HookEvent],
    /// The mode of the settings file when it does not exist yet (an existing file keeps its
    /// own).
    pub new_file_mode: u32,
    pub dry_run: bool,
    pub status_line: &'a StatusLinePlan,
}

/// Registers the hook binaries found in `request.binaries_dir` in its settings file, and the
/// status line as `request.status_line` says: set only where none is configured (in this file
/// or, as `elsewhere` lists, another scope's), kept up to date once it is ours, never over
/// someone else's. Runs under the state folder's install lock (except a dry run, which writes
/// nothing at all).
pub fn install(state: &StateDir, request: &InstallRequest<'_>) -> Result<Outcome> {
    let &InstallRequest {
        settings_path,
        binaries_dir,
        omitted,
        new_file_mode,
        dry_run,
        status_line: plan,
    } = request;
    let _lock = if dry_run {
        None
    } else {
        // A file we would refuse is refused before the state folder is touched.
        SettingsDocument::read(settings_path)?;
        refuse_read_only(settings_path)?;
        Some(lock_installs(state)?)
    };
    if binaries_dir.to_str().is_none() {
        bail!(
            "the binaries' folder `{}` is not valid UTF-8, so a settings file cannot name it",
            binaries_dir.display()
        );
    }
    let planned: Vec<OwnedHandler> = planned_handlers(binaries_dir)
        .into_iter()
        .filter(|handler| !omitted.iter().any(|event| event.name() == handler.event))
        .collect();
    if planned.is_empty() {
        let names: Vec<&str> = HOOK_BINARIES.iter().map(|binary| binary.name).collect();
        bail!(
            "no hook binary ({}) beside `ctxhooks` in `{}`",
            names.join(", "),
            binaries_dir.display()
        );
    }
    let document = SettingsDocument::read(settings_path)?;
    let mut installs = InstallsFile::load(state)?;
    let key = settings_path.to_string_lossy().into_owned();
    // A record for a file that has since disappeared describes nothing that still exists.
    let previous = installs
        .settings_files
        .get(&key)
        .filter(|_| document.original.is_some())
        .cloned();

    let mut outcome = Outcome {
        action: Action::Install,
        path: settings_path.to_path_buf(),
        dry_run,
        ..Outcome::default()
    };
    let mut value = document.value.clone();
    // What this run records: the previous record brought up to date, or a new one.
    let mut record = previous.clone().unwrap_or_default();
    for stale in &record.handlers {
        if !planned.contains(stale) && remove_handler(&mut value, stale) {
            outcome.removed.push(stale.clone());
        }
    }
    for handler in &planned {
        if !contains_handler(&value, handler) {
            let created = add_handler(&mut value, handler);
            record.created_hooks_object |= created.hooks_object;
            if created.event_array && !record.created_event_arrays.contains(&handler.event) {
                record.created_event_arrays.push(handler.event.clone());
            }
            outcome.added.push(handler.clone());
        }
    }
    let arrays = &record.created_event_arrays;
    drop_emptied_containers(&mut value, arrays, record.created_hooks_object);
    outcome
        .notes
        .extend(foreign_ctxhooks_handlers(&value, &planned));
    let recorded_line = record.status_line.as_ref();
    let (owned_line, line_outcome) =
        plan_status_line(&mut value, recorded_line, plan, settings_path, binaries_dir);
    outcome.status_line = line_outcome;

    outcome.changed = document.original.is_none() || value != document.value;
    // Our exact handlers are there but unrecorded (the state folder was lost, or they were
    // copied by hand), or our status line is there unrecorded: record them as ours so that
    // `uninstall` can remove them. With a record, only the record of the status line changes:
    // ours now, or no longer ours (it was replaced since), nothing else.
    let adopt = !outcome.changed && (previous.is_none() || owned_line != record.status_line);
    if !outcome.changed && !adopt {
        return Ok(outcome);
    }
    if !adopt {
        outcome.write = WriteKind::Merged;
    } else if previous.is_none() {
        // Which containers are ours is unknown; those holding nothing but our handlers are
        // treated as ours, so uninstall does not leave empty ones behind.
        (record.created_event_arrays, record.created_hooks_object) =
            containers_only_ours(&value, &planned);
        outcome.notes.push(if dry_run {
            "the hooks are already registered but not recorded; install would record them as ours"
                .to_owned()
        } else {
            "the hooks were already registered but not recorded; they are now recorded as ours, \
             so `ctxhooks uninstall` removes them"
                .to_owned()
        });
    }
    let new_text = document.render(&value)?;
    outcome.diff = diff_of(&document, &new_text);
    if dry_run {
        return Ok(outcome);
    }

    state.ensure()?;
    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    if let Some(bytes) = &document.original {
        outcome.backup = Some(back_up(state, settings_path, bytes)?);
    }
    if previous.is_none() {
        record.installed_at.clone_from(&now);
        // Said here, not left to the record's default: `Absent` is what lets uninstall delete
        // the file.
        record.before = match (&document.original, &outcome.backup) {
            (Some(bytes), Some(backup)) => PriorState::Present {
                size: bytes.len() as u64,
                sha256: files::sha256_hex(bytes),
                backup: backup.clone(),
            },
            _ => PriorState::Absent,
        };
    }
    record.updated_at = now;
    record.handlers = planned;
    record.status_line = owned_line;
    ensure_unchanged(settings_path, document.original.as_deref())?;
    // The record goes first: if the settings write then fails, uninstall finds nothing to
    // remove, which is harmless; the other order could leave handlers nobody owns.
    installs.settings_files.insert(key, record);
    installs.save(state)?;
    if !adopt {
        write_settings(settings_path, new_text.as_bytes(), new_file_mode)?;
    }
    Ok(outcome)
}

/// Removes exactly the handlers the ownership record says we added to `settings_path`. If the
/// result equals the file before our first install, its original bytes are written back (or the
/// file is deleted if it did not exist). Runs under the install lock unless `dry_run` or there
/// is nothing recorded.
pub fn uninstall(state: &StateDir, settings_path: &Path, dry_run: bool) -> Result<Outcome> {
    let key = settings_path.to_string_lossy().into_owned();
    let first_look = InstallsFile::load(state)?;
    // Nothing recorded (or a dry run): nothing is written, and no lock is taken. The record
    // read is the first look's, never a second read an install that ended in between changed:
    // an uninstall that writes always holds the lock.
    let (_lock, mut installs) = if dry_run || !first_look.settings_files.contains_key(&key) {
        (None, first_look)
    } else {
        refuse_read_only(settings_path)?;
        let lock = lock_installs(state)?;
        // Read again under the lock: another run may have changed it in between.
        (Some(lock), InstallsFile::load(state)?)
    };
    let mut outcome = Outcome {
        action: Action::Uninstall,
        path: settings_path.to_path_buf(),
        dry_run,
        ..Outcome::default()
    };
    // The record is taken out: what is saved below (never in a dry run) no longer holds it.
    let Some(record) = installs.settings_files.remove(&key) else {
        outcome.notes.push(format!(
            "nothing to uninstall: ctxhooks has no record of installing into `{}`",
            settings_path.display()
        ));
        return Ok(outcome);
    };
    let document = SettingsDocument::read(settings_path)?;
    let Some(current) = &document.original else {
        outcome.notes.push(format!(
            "`{}` no longer exists; only the ownership record is dropped",
            settings_path.display()
        ));
        if !dry_run {
            installs.save(state)?;
        }
        return Ok(outcome);
    };

    let mut value = document.value.clone();
    for handler in &record.handlers {
        if remove_handler(&mut value, handler) {
            outcome.removed.push(handler.clone());
        }
    }
    if let Some(ours) = &record.status_line {
        let action = if value.get("statusLine") == Some(ours) {
            if let Some(top) = value.as_object_mut() {
                top.shift_remove("statusLine");
            }
            StatusLineAction::Removed
        } else {
            outcome.notes.push(format!(
                "the status line ctxhooks set in `{}` was changed since; it is left as it is",
                settings_path.display()
            ));
            StatusLineAction::ChangedSince
        };
        outcome.status_line = Some(StatusLineOutcome {
            action,
            value: ours.clone(),
            configured_in: None,
            advice: None,
        });
    }
    drop_emptied_containers(
        &mut value,
        &record.created_event_arrays,
        record.created_hooks_object,
    );

    // The bytes from before the first install, when taking our entries out gives them back.
    let restored = match &record.before {
        PriorState::Present { sha256, backup, .. } => original_bytes(backup, sha256)
            .filter(|bytes| parse_settings(settings_path, bytes).ok().as_ref() == Some(&value)),
        PriorState::Absent => None,
    };
    let emptied = record.before == PriorState::Absent && value == Value::Object(Map::new());
    // Unchanged content is never rewritten, even if our layout would differ.
    let (target, changed, write) = if emptied {
        (None, true, WriteKind::Deleted)
    } else if let Some(bytes) = restored {
        let changed = bytes != *current;
        (Some(bytes), changed, WriteKind::RestoredOriginal)
    } else {
        let bytes = document.render(&value)?.into_bytes();
        (Some(bytes), value != document.value, WriteKind::Merged)
    };
    outcome.changed = changed;
    outcome.write = if changed { write } else { WriteKind::None };
    if changed {
        let new_text = target.as_deref().map(String::from_utf8_lossy);
        outcome.diff = diff_of(&document, &new_text.unwrap_or_default());
    }
    if dry_run {
        return Ok(outcome);
    }
    if outcome.changed {
        state.ensure()?;
        outcome.backup = Some(back_up(state, settings_path, current)?);
        ensure_unchanged(settings_path, Some(current))?;
        match &target {
            None => {
                fs_err::remove_file(settings_path).context("failed to delete the settings file")?;
            }
            Some(bytes) => write_settings(settings_path, bytes, files::PRIVATE_FILE_MODE)?,
        }
    }
    installs.save(state)?;
    Ok(outcome)
}

/// Decides the status line of `settings` (changing it in place when it is ours to set or bring
/// up to date) and returns the `statusLine` value to record as ours afterwards, with what was
/// done.
fn plan_status_line(
    settings: &mut Value,
    recorded: Option<&Value>,
    plan: &StatusLinePlan,
    settings_path: &Path,
    binaries_dir: &Path,
) -> (Option<Value>, Option<StatusLineOutcome>) {
    let current = settings.get("statusLine").cloned();
    let ctxhooks = binaries_dir.join("ctxhooks");
    let planned = status_line_value(&ctxhooks);
    // Ours (set, kept or brought up to date), said as `action` when there is one to say.
    let ours = |action: Option<StatusLineAction>| {
        let outcome = action.map(|action| StatusLineOutcome {
            action,
            value: planned.clone(),
            configured_in: None,
            advice: None,
        });
        (Some(planned.clone()), outcome)
    };
    // Someone else's, configured in `path`: left as it is, with how to add the segment to it.
    let left_alone = |value: &Value, path: &Path, configured_in: Option<PathBuf>| {
        let outcome = StatusLineOutcome {
            action: StatusLineAction::LeftAlone,
            value: value.clone(),
            configured_in,
            advice: Some(compose_advice(value, path, &ctxhooks)),
        };
        (None, Some(outcome))
    };
    let mut set = || {
        if let Some(top) = settings.as_object_mut() {
            top.insert("statusLine".to_owned(), planned.clone());
        }
    };
    match (recorded, &current) {
        // Ours and untouched since: kept up to date, with or without --statusline.
        (Some(recorded), Some(current)) if recorded == current && *current == planned => {
            ours(plan.requested.then_some(StatusLineAction::Kept))
        }
        (Some(recorded), Some(current)) if recorded == current => {
            set();
            ours(Some(StatusLineAction::Updated))
        }
        _ if !plan.requested => (None, None),
        (_, Some(current)) if *current == planned => ours(Some(StatusLineAction::Kept)),
        (_, Some(current)) => left_alone(current, settings_path, None),
        (_, None) => {
            if let Some((path, other)) = plan.elsewhere.first() {
                left_alone(other, path, Some(path.clone()))
            } else {
                set();
                ours(Some(StatusLineAction::Added))
            }
        }
    }
}

/// Fails if the settings file no longer holds `expected` (`None`: does not exist): someone (say,
/// Claude Code saving a permission) wrote it while we worked, and writing now would lose that.
fn ensure_unchanged(path: &Path, expected: Option<&[u8]>) -> Result<()> {
    let now = read_settings_bytes(path).context("failed to re-read the settings file")?;
    if now.as_deref() != expected {
        bail!(
            "`{}` changed while ctxhooks was editing it; nothing was written, run the command again",
            path.display()
        );
    }
    Ok(())
}

/// Takes an exclusive lock on `<state>/installs.lock`, held while one install or uninstall
/// reads, decides and writes (until the file returned is closed), so two runs at once cannot
/// lose each other's ownership records.
fn lock_installs(state: &StateDir) -> Result<fs_err::File> {
    state.ensure()?;
    let file =
        files::open_lock_file(&state.installs_lock()).context("failed to open the install lock")?;
    file.file()
        .lock()
        .context("failed to take the install lock")?;
    Ok(file)
}

/// The pre-install bytes from `backup`, if it still holds them (checked against `sha256`).
fn original_bytes(backup: &Path, sha256: &str) -> Option<Vec<u8>> {
    let bytes = files::read_state_file_within(backup, files::SMALL_STATE_FILE_LIMIT).ok()??;
    (files::sha256_hex(&bytes) == sha256).then_some(bytes)
}

fn diff_of(document: &SettingsDocument, new_text: &str) -> String {
    let old_text = document
        .original
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    unified_diff(&document.path.display().to_string(), &old_text, new_text)
}

/// The events whose arrays hold only groups made of `planned` handlers, and whether every
/// event under `hooks` is such.
fn containers_only_ours(settings: &Value, planned: &[OwnedHandler]) -> (Vec<String>, bool) {
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return (Vec::new(), false);
    };
    // A group with nothing but a list of our handlers.
    let ours_only = |event: &str, group: &Value| {
        group
            .as_object()
            .is_some_and(|group| group.keys().all(|key| key == "hooks"))
            && group
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|handlers| {
                    handlers
                        .iter()
                        .all(|handler| planned.iter().any(|owned| owned.is(event, handler)))
                })
    };
    let ours: Vec<String> = events
        .iter()
        .filter(|(event, groups)| {
            let groups = groups.as_array();
            groups.is_some_and(|groups| groups.iter().all(|group| ours_only(event, group)))
        })
        .map(|(event, _)| event.clone())
        .collect();
    let all = ours.len() == events.len();
    (ours, all)
}

/// Notes about handlers that run one of our binaries but are not the ones we are installing
/// (say, from another state folder or added by hand): they are left alone.
fn foreign_ctxhooks_handlers(settings: &Value, planned: &[OwnedHandler]) -> Vec<String> {
    handlers(settings)
        .filter(|(event, handler)| {
            is_ctxhooks_command(handler) && !planned.iter().any(|owned| owned.is(event, handler))
        })
        .map(|(event, handler)| {
            format!("left alone: another ctxhooks handler under `{event}`: {handler}")
        })
        .collect()
}

/// Refuses a settings file whose owner may not write it (mode without `u+w`): someone made it
/// read-only on purpose, and a rename would replace it regardless.
fn refuse_read_only(path: &Path) -> Result<()> {
    if let Ok(metadata) = fs_err::metadata(path)
        && private::is_read_only(&metadata)
    {
        let mode = private::mode_of(path)
            .map_or_else(|_| String::new(), |mode| format!(" (mode {mode:04o})"));
        bail!(
            "`{}` is read-only{mode}; make it writable first, or choose another file with --settings",
            path.display(),
        );
    }
    Ok(())
}
