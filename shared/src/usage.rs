//! Context usage per API request: rows, drops and their classes, estimates (not built yet).
