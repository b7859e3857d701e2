//! Adding and removing our handlers in a settings value, touching nothing else.

use serde_json::{Map, Value, json};

use super::handlers::OwnedHandler;

/// What adding a handler had to create.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Created {
    /// The top-level `hooks` object did not exist.
    pub hooks_object: bool,
    /// The event's array did not exist.
    pub event_array: bool,
}

/// Every handler of every matcher group under `hooks`, with the event it is registered under
/// (what is not shaped as a settings file has is skipped).
pub fn handlers(settings: &Value) -> impl Iterator<Item = (&String, &Value)> {
    let events = settings.get("hooks").and_then(Value::as_object);
    events.into_iter().flatten().flat_map(|(event, groups)| {
        groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks").and_then(Value::as_array))
            .flatten()
            .map(move |handler| (event, handler))
    })
}

/// Whether `owned.handler` is in any matcher group of `owned.event`.
pub fn contains_handler(settings: &Value, owned: &OwnedHandler) -> bool {
    handlers(settings).any(|(event, handler)| owned.is(event, handler))
}

/// Appends `owned.handler` to its event, in a matcher group of its own with no matcher (which
/// matches everything). `settings` must be an object whose `hooks`, if present, is an object of
/// arrays (as `parse_settings` checks).
pub fn add_handler(settings: &mut Value, owned: &OwnedHandler) -> Created {
    let mut created = Created::default();
    let Some(top) = settings.as_object_mut() else {
        return created;
    };
    let hooks = top.entry("hooks").or_insert_with(|| {
        created.hooks_object = true;
        Value::Object(Map::new())
    });
    let Some(events) = hooks.as_object_mut() else {
        return created;
    };
    let groups = events.entry(owned.event.clone()).or_insert_with(|| {
        created.event_array = true;
        Value::Array(Vec::new())
    });
    if let Some(groups) = groups.as_array_mut() {
        groups.push(json!({ "hooks": [owned.handler.clone()] }));
    }
    created
}

/// Removes every occurrence of `owned.handler` from its event, and any matcher group that this
/// leaves without handlers. Returns whether anything was removed.
pub fn remove_handler(settings: &mut Value, owned: &OwnedHandler) -> bool {
    let Some(groups) = settings
        .get_mut("hooks")
        .and_then(|hooks| hooks.get_mut(&owned.event))
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    let mut removed = false;
    groups.retain_mut(|group| {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = handlers.len();
        handlers.retain(|handler| handler != &owned.handler);
        if handlers.len() == before {
            return true;
        }
        removed = true;
        !handlers.is_empty()
    });
    removed
}

/// Drops the event arrays we created that are now empty, then the `hooks` object if we created
/// it and it is now empty.
pub fn drop_emptied_containers(
    settings: &mut Value,
    created_event_arrays: &[String],
    created_hooks_object: bool,
) {
    let Some(top) = settings.as_object_mut() else {
        return;
    };
    if let Some(events) = top.get_mut("hooks").and_then(Value::as_object_mut) {
        for event in created_event_arrays {
            if events
                .get(event)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                events.shift_remove(event);
            }
        }
    }
    if created_hooks_object
        && top
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    {
        top.shift_remove("hooks");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(event: &str, command: &str) -> OwnedHandler {
        OwnedHandler {
            event: event.to_owned(),
            handler: json!({"type": "command", "command": command, "args": [], "timeout": 10}),
        }
    }

    #[test]
    fn add_then_remove_restores_the_value() {
        let original = json!({
            "a": 1,
            "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]},
            "z": 2
        });
        let mut settings = original.clone();
        let first = owned("PostToolUse", "/b/ctxhooks-tooluse");
        let second = owned("Stop", "/b/ctxhooks-stop");
        assert_eq!(add_handler(&mut settings, &first), Created::default());
        assert_eq!(
            add_handler(&mut settings, &second),
            Created {
                hooks_object: false,
                event_array: true
            }
        );
        assert!(contains_handler(&settings, &first) && contains_handler(&settings, &second));
        assert!(remove_handler(&mut settings, &first));
        assert!(remove_handler(&mut settings, &second));
        assert!(!remove_handler(&mut settings, &second));
        drop_emptied_containers(&mut settings, &["Stop".to_owned()], false);
        assert_eq!(settings, original);
    }

    #[test]
    fn a_group_shared_with_a_user_handler_survives() {
        let ours = owned("Stop", "/b/ctxhooks-stop");
        let mut settings = json!({"hooks": {"Stop": [{"hooks": [ours.handler.clone(), {"type": "command", "command": "mine"}]}]}});
        assert!(remove_handler(&mut settings, &ours));
        drop_emptied_containers(&mut settings, &["Stop".to_owned()], true);
        assert_eq!(
            settings,
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}})
        );
    }
}
