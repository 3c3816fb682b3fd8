//! TLE files: two-line element sets, each optionally preceded by a name
//! line (the three-line form); blank lines ignored. Parsed by the `sgp4`
//! crate (checksums included); an error names the file and line.

/// A satellite from a TLE file: its name (or "NORAD <id>") and elements.
#[derive(Debug)]
pub struct TleSat {
    pub name: String,
    pub elements: sgp4::Elements,
}

/// The largest TLE file read (bytes): some 380 000 satellites.
pub const MAX_TLE_BYTES: u64 = 64 << 20;

/// Read and parse the TLE file at `path` (a regular file of at most
/// [`MAX_TLE_BYTES`]; a FIFO or a device is refused unread).
pub fn read(path: &str) -> Result<Vec<TleSat>, String> {
    use crate::files::{read_text, Accept};
    let text = read_text(std::path::Path::new(path), MAX_TLE_BYTES, Accept::Regular)
        .map_err(|e| format!("cannot read {path:?}: {e}"))?;
    parse(path, &text)
}

/// Parse the text of a TLE file called `file` (for messages).
pub fn parse(file: &str, text: &str) -> Result<Vec<TleSat>, String> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (n0, l0) = lines[i];
        let (name, first) = if l0.starts_with("1 ") {
            (None, i)
        } else {
            (Some(l0.trim().trim_start_matches("0 ").to_string()), i + 1)
        };
        let (Some(&(n1, l1)), Some(&(n2, l2))) = (lines.get(first), lines.get(first + 1)) else {
            return Err(format!(
                "{file} line {n0}: an incomplete element set (a name line, then lines 1 and 2)"
            ));
        };
        if !l1.starts_with("1 ") || !l2.starts_with("2 ") {
            let bad = if l1.starts_with("1 ") { n2 } else { n1 };
            return Err(format!(
                "{file} line {bad}: not a TLE line (line 1 starts with \"1 \", line 2 with \"2 \")"
            ));
        }
        let elements = sgp4::Elements::from_tle(name.clone(), l1.as_bytes(), l2.as_bytes())
            .map_err(|e| format!("{file} line {n1}: {e}"))?;
        out.push(TleSat {
            name: name.unwrap_or_else(|| format!("NORAD {}", elements.norad_id)),
            elements,
        });
        i = first + 2;
    }
    if out.is_empty() {
        return Err(format!("{file}: no element sets"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISS: &str = "ISS (ZARYA)
1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9992
2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008
";

    #[test]
    fn named_and_unnamed_sets_parse() {
        let s = parse("iss.tle", ISS).unwrap();
        assert_eq!(s[0].name, "ISS (ZARYA)");
        let two: String = ISS.lines().skip(1).collect::<Vec<_>>().join("\n");
        let s = parse("x.tle", &format!("{two}\n\n{ISS}")).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "NORAD 25544");
    }

    #[test]
    fn a_broken_set_names_the_file_and_line() {
        let bad = ISS.replace("9992", "9993");
        let e = parse("iss.tle", &bad).unwrap_err();
        assert!(e.starts_with("iss.tle line 2:"), "{e}");
        let e = parse("iss.tle", "ISS\n1 25544U\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("incomplete"), "{e}");
        assert!(parse("e.tle", "\n").is_err());
    }
}
