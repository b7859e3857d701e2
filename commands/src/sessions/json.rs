//! `ctxhooks sessions --json`: each session as one object, its keys in the order they have
//! always had (`cleanup` as `docs/archive.md` gives it).

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::catalog::KeptSession;
use crate::output::fields_by_name;

impl Serialize for KeptSession {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let summary = &self.summary;
        let mut session = serializer.serialize_struct("KeptSession", 17)?;
        fields_by_name! { session, summary; session_id }
        // The folder it ran in, named `project` here since the layout's first version.
        session.serialize_field("project", &summary.cwd)?;
        fields_by_name! { session, summary; title, session_kind, entrypoint }
        fields_by_name! { session, self; transcript, transcript_present, cleanup }
        session.serialize_field("first_activity", &summary.first_time)?;
        fields_by_name! { session, self; last_activity, size, stored_bytes, generations }
        fields_by_name! { session, self; subagents, requests, compactions, snapshots }
        session.end()
    }
}
