//! Small numeric CSV tables for channel models (fade traces, masking
//! angles), read once when a plan is built. Errors name the file and line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Resolve `file` against `base` unless it is absolute.
pub fn resolve(base: &Path, file: &str) -> String {
    let p = Path::new(file);
    if p.is_absolute() {
        file.to_string()
    } else {
        let joined: PathBuf = base.join(p);
        joined.to_string_lossy().into_owned()
    }
}

/// A parsed table: which of the accepted headers it had, and its rows.
#[derive(Debug, PartialEq)]
pub struct Table {
    /// Index into the accepted headers.
    pub header: usize,
    /// Rows with their 1-based line numbers.
    pub rows: Vec<(usize, Vec<f64>)>,
}

/// The largest table file read (bytes).
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// The most rows a table may have.
pub const MAX_ROWS: usize = 2_000_000;

/// Read a CSV whose first non-blank line is one of `headers` (comma
/// separated names); `#` starts a comment line. Every value must be finite.
pub fn read(file: &str, headers: &[&[&str]]) -> Result<Table, String> {
    use crate::files::{read_text, Accept};
    let text = read_text(Path::new(file), MAX_FILE_BYTES, Accept::Regular)
        .map_err(|e| format!("cannot read {file}: {e}"))?;
    parse(file, &text, headers)
}

pub fn parse(file: &str, text: &str, headers: &[&[&str]]) -> Result<Table, String> {
    let mut header = None;
    let mut rows = Vec::new();
    let expected = headers
        .iter()
        .map(|h| h.join(","))
        .collect::<Vec<_>>()
        .join("\" or \"");
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = l.split(',').map(str::trim).collect();
        match header {
            None => {
                let h = headers
                    .iter()
                    .position(|h| {
                        h.len() == cells.len() && h.iter().zip(&cells).all(|(a, b)| a == b)
                    })
                    .ok_or_else(|| {
                        format!("{file} line {line}: header {l:?} is not \"{expected}\"")
                    })?;
                header = Some(h);
            }
            Some(h) => {
                let n = headers[h].len();
                if cells.len() != n {
                    return Err(format!(
                        "{file} line {line}: {} values, expected {n}",
                        cells.len()
                    ));
                }
                let mut vals = Vec::with_capacity(n);
                for (c, name) in cells.iter().zip(headers[h]) {
                    let v: f64 = c
                        .parse()
                        .map_err(|_| format!("{file} line {line}: {name} {c:?} is not a number"))?;
                    if !v.is_finite() {
                        return Err(format!("{file} line {line}: {name} {c:?} is not finite"));
                    }
                    vals.push(v);
                }
                if rows.len() >= MAX_ROWS {
                    return Err(format!(
                        "{file} line {line}: more than {MAX_ROWS} rows, the most a table may have"
                    ));
                }
                rows.push((line, vals));
            }
        }
    }
    let Some(header) = header else {
        return Err(format!(
            "{file}: empty (expected a header \"{expected}\" and rows)"
        ));
    };
    if rows.is_empty() {
        return Err(format!("{file}: no data rows after the header"));
    }
    Ok(Table { header, rows })
}

/// Data loaded at plan-build time and shared by every run of the plan.
/// Not part of the scenario (skipped by serde); equal whatever it holds, so
/// a spec compares by its parameters.
pub struct Loaded<T>(pub Option<Arc<T>>);

impl<T> Clone for Loaded<T> {
    fn clone(&self) -> Self {
        Loaded(self.0.clone())
    }
}
impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Loaded(None)
    }
}

impl<T> PartialEq for Loaded<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> std::fmt::Debug for Loaded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Loaded"
        } else {
            "NotLoaded"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &[&[&str]] = &[&["t_s", "per"], &["t_s", "ber"]];

    #[test]
    fn parses_either_header_and_names_bad_lines() {
        let t = parse("f.csv", "# c\nt_s,ber\n0,1e-6\n\n1.5, 0\n", H).unwrap();
        assert_eq!(t.header, 1);
        assert_eq!(t.rows, vec![(3, vec![0.0, 1e-6]), (5, vec![1.5, 0.0])]);
        assert_eq!(
            parse("f.csv", "t_s,per\n0,x\n", H).unwrap_err(),
            "f.csv line 2: per \"x\" is not a number"
        );
        assert!(parse("f.csv", "t,per\n", H)
            .unwrap_err()
            .starts_with("f.csv line 1: header"));
        assert!(parse("f.csv", "t_s,per\n0,1,2\n", H)
            .unwrap_err()
            .contains("line 2: 3 values"));
        assert!(parse("f.csv", "", H).unwrap_err().contains("empty"));
        assert!(parse("f.csv", "t_s,per\n", H)
            .unwrap_err()
            .contains("no data rows"));
    }
}
