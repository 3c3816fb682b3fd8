//! "Did you mean": the known name closest to a misspelt key, value or unit.

/// Optimal string alignment distance (Levenshtein with transpositions),
/// over characters, ignoring case.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// The candidate closest to `word`, if it is close enough to be a likely
/// misspelling: at most one edit in four characters (at least one edit;
/// none but a change of case for words under three characters), and not
/// `word` itself.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    if word.is_empty() || word.chars().count() > 64 {
        return None;
    }
    // Short words are too easily close to anything: only a change of case.
    let n = word.chars().count();
    let limit = if n < 3 { 0 } else { (n / 4).max(1) };
    let close: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    let best = close.iter().map(|x| x.0).min()?;
    // Only a clear winner: several names as close are no guess.
    let mut at_best = close.iter().filter(|x| x.0 == best);
    let first = at_best.next()?.1;
    at_best.next().is_none().then_some(first)
}

/// `; did you mean "x"?` or nothing.
pub(crate) fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(word, candidates)
        .map(|c| format!("; did you mean {c:?}?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested() {
        assert_eq!(distance("qeue", "queue"), 1);
        assert_eq!(distance("tpc", "tcp"), 1);
        assert_eq!(
            did_you_mean("qeue", ["rate", "queue", "delay"]),
            Some("queue")
        );
        assert_eq!(did_you_mean("tpc", ["tcp", "to", "from"]), Some("tcp"));
        assert_eq!(
            did_you_mean("gilbert-elliot", ["per", "gilbert-elliott"]),
            Some("gilbert-elliott")
        );
        assert_eq!(did_you_mean("MBPS", ["Mbps", "bps"]), Some("Mbps"));
        assert_eq!(did_you_mean("colour", ["rate", "queue", "delay"]), None);
        assert_eq!(did_you_mean("", ["a"]), None);
        assert_eq!(did_you_mean("q", ["p", "apply_to"]), None);
        assert_eq!(did_you_mean("Tbps", ["bps", "Mbps", "Gbps"]), None);
    }
}
