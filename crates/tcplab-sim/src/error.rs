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
fn edit_distance(a: &str, b: &str) -> usize {
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

/// A deserializer's "unknown field `msss`, expected one of `mss`, ..." (or "unknown variant")
/// with the nearest expected name suggested: "... (did you mean `mss`?)". Other messages are
/// returned as they are.
pub fn with_suggestion(message: &str) -> String {
    if !(message.starts_with("unknown field `") || message.starts_with("unknown variant `")) {
        return message.to_string();
    }
    let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    match quoted.split_first() {
        Some((given, names)) => match nearest(given, names.iter().copied()) {
            Some(name) if name != *given => format!("{message} (did you mean `{name}`?)"),
            _ => message.to_string(),
        },
        None => message.to_string(),
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
    }
}
