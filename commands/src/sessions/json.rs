//! `ctxhooks sessions --json`: each session as one object, its keys in the order they have
//! always had (`cleanup` as `docs/archive.md` gives it).

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::catalog::KeptSession;

impl Serialize for KeptSession {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let summary = &self.summary;
        let mut session = serializer.serialize_struct("KeptSession", 17)?;
        session.serialize_field("session_id", &summary.session_id)?;
        // The folder it ran in, named `project` here since the layout's first version.
        session.serialize_field("project", &summary.cwd)?;
        session.serialize_field("title", &summary.title)?;
        session.serialize_field("session_kind", &summary.session_kind)?;
        session.serialize_field("entrypoint", &summary.entrypoint)?;
        session.serialize_field("transcript", &self.transcript)?;
        session.serialize_field("transcript_present", &self.transcript_present)?;
        session.serialize_field("cleanup", &self.cleanup)?;
        session.serialize_field("first_activity", &summary.first_time)?;
        session.serialize_field("last_activity", &self.last_activity)?;
        session.serialize_field("size", &self.size)?;
        session.serialize_field("stored_bytes", &self.stored_bytes)?;
        session.serialize_field("generations", &self.generations)?;
        session.serialize_field("subagents", &self.subagents)?;
        session.serialize_field("requests", &self.requests)?;
        session.serialize_field("compactions", &self.compactions)?;
        session.serialize_field("snapshots", &self.snapshots)?;
        session.end()
    }
}
