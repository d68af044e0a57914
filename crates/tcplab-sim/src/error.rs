//! Errors a user can cause: each names the field, the value and what was expected.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    #[error("malformed TOML: {0}")]
    Toml(String),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("--set {path}: {message}")]
    Override { path: String, message: String },
}

/// The candidate nearest to `given` by edit distance (case-insensitive), if it is near enough
/// to be a slip of the keyboard: at most one edit in a short name, a third of the name's length
/// in a longer one. Ties go to the first candidate.
pub fn nearest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_lowercase();
    let limit = (given.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&given, &c.to_lowercase());
        if d <= limit && !matches!(best, Some((bd, _)) if bd <= d) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The nearest candidate to `given` as the end of a message, " (did you mean `x`?)", or ""
/// when none is near (or `given` is one of them). For the sites that hold the whole list of
/// valid names (a network's links and nodes, of which a message shows only the first few).
pub fn suggest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match nearest(given, candidates) {
        Some(name) if name != given => format!(" (did you mean `{name}`?)"),
        _ => String::new(),
    }
}

/// A message that names a value and the values expected, with the nearest expected one
/// suggested: "... (did you mean `mss`?)". The one rule for every enumeration, whatever wrote
/// the message: a deserializer's "unknown field `msss`, expected one of `mss`, ..." or
/// "unknown variant `cubik`, expected one of `aimd`, `cubic`, ..." (every option table's
/// names and values, the registries' lists of controllers, recoveries, disciplines and loss
/// models), or a check's "\"hop0.fwdd\" is not a link direction of this network (expected one
/// of hop0.fwd, ...)". Other messages, and messages that already suggest, are returned as
/// they are.
pub fn with_suggestion(message: &str) -> String {
    if message.contains("(did you mean") {
        return message.to_string();
    }
    let (given, rest) = if let Some(tail) = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.strip_prefix(p))
    {
        match tail.split_once('`') {
            Some(parts) => parts,
            None => return message.to_string(),
        }
    } else if let Some(tail) = message.strip_prefix('"') {
        match tail.split_once('"') {
            Some(parts) => parts,
            None => return message.to_string(),
        }
    } else {
        return message.to_string();
    };
    let Some(at) = rest.find("expected") else {
        return message.to_string();
    };
    let expected = &rest[at..];
    let candidates: Vec<&str> = if expected.contains('`') {
        expected.split('`').skip(1).step_by(2).collect()
    } else {
        let list = expected
            .trim_start_matches("expected one of")
            .trim_start_matches("expected");
        let list = list.split(')').next().unwrap_or_default();
        list.split(',')
            .map(|c| c.trim().trim_matches('"'))
            .filter(|c| !c.is_empty() && !c.contains(' ') && *c != "...")
            .collect()
    };
    format!("{message}{}", suggest(given, candidates))
}

impl Error {
    /// The error with `with_suggestion` applied to its message: what `crate::load` and
    /// `crate::load_value` return, so every enumeration a scenario names is checked by it.
    pub fn suggested(self) -> Self {
        match self {
            Error::Invalid { field, message } => Error::Invalid {
                message: with_suggestion(&message),
                field,
            },
            Error::Override { path, message } => Error::Override {
                message: with_suggestion(&message),
                path,
            },
            e => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_name() {
        let m = "unknown field `msss`, expected one of `count`, `mss`, `rwnd`";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `mss`?)"));
        let m = "unknown variant `newrneo`, expected one of `reno`, `newreno`, `sack`";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `newreno`?)"));
        // Nothing near: no guess.
        let m = "unknown field `bandwidth`, expected one of `rate`, `delay`";
        assert_eq!(with_suggestion(m), m);
        assert_eq!(with_suggestion("invalid type: string"), "invalid type: string");
        assert_eq!(nearest("MSS", ["mss"]), Some("mss"));
        assert_eq!(nearest("rwnd", ["rate", "delay"]), None);
        // A value of an option table, and a value checked against the network's names.
        let m = "unknown variant `of`, expected one of `off`, `linux`, `rfc9406`";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `off`?)"));
        let m = "unknown variant `clasic`, expected `off` or `classic`";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `classic`?)"));
        let m = "\"hop0.fwdd\" is not a link direction of this network (expected one of hop0.fwd, hop0.rev)";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `hop0.fwd`?)"));
        let m = "\"n9\" is not a node (expected one of \"n0\", \"n1\", ...)";
        assert_eq!(with_suggestion(m), format!("{m} (did you mean `n0`?)"));
        // Already suggested, or nothing near: as it was.
        let m = "unknown variant `cubik`, expected one of `cubic` (did you mean `cubic`?)";
        assert_eq!(with_suggestion(m), m);
        let m = "\"x\" is also the sender's node (expected two different nodes)";
        assert_eq!(with_suggestion(m), m);
        assert_eq!(
            suggest("hop0.fwdd", ["hop0.fwd", "hop0.rev"]),
            " (did you mean `hop0.fwd`?)"
        );
        assert_eq!(suggest("hop0.fwd", ["hop0.fwd"]), "");
    }
}
