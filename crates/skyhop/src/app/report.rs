//! What an application adds to its flow's results: named scalars and named
//! tables of records, in the order it gives them.
//!
//! A flow's result carries the report flattened (`FlowResult::app`), so in
//! the run's JSON each scalar is a key of the flow and each table a list of
//! records (one object per row, keys in column order):
//!
//! ```json
//! "w": { "goodput_bps": ..., "objects_completed": 12,
//!        "objects": [ { "page": 0, "request_bytes": 250, ... }, ... ] }
//! ```
//!
//! Read back, a JSON array is a table and anything else a scalar, so a
//! report survives the round trip. A name must not be one of the flow's own
//! keys (`goodput_bps`, `legs`, ...).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;

/// One value of a report: a scalar, or a field of a record. Integers
/// compare by value (`UInt(3) == Int(3)`): JSON does not tell them apart.
#[derive(Clone, Debug)]
pub enum Cell {
    /// No value (e.g. the response time of an object that never arrived).
    Null,
    Bool(bool),
    UInt(u64),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Cell {
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Cell::UInt(x) => Some(x as f64),
            Cell::Int(x) => Some(x as f64),
            Cell::Float(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Cell::UInt(x) => Some(x),
            Cell::Int(x) => u64::try_from(x).ok(),
            _ => None,
        }
    }
}

impl PartialEq for Cell {
    fn eq(&self, o: &Cell) -> bool {
        match (self, o) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::Float(a), Cell::Float(b)) => a == b,
            (Cell::Text(a), Cell::Text(b)) => a == b,
            (Cell::UInt(a), Cell::UInt(b)) => a == b,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (Cell::UInt(u), Cell::Int(i)) | (Cell::Int(i), Cell::UInt(u)) => {
                i128::from(*u) == i128::from(*i)
            }
            _ => false,
        }
    }
}

impl From<u64> for Cell {
    fn from(x: u64) -> Cell {
        Cell::UInt(x)
    }
}
impl From<i64> for Cell {
    fn from(x: i64) -> Cell {
        Cell::Int(x)
    }
}
impl From<f64> for Cell {
    fn from(x: f64) -> Cell {
        Cell::Float(x)
    }
}
impl From<bool> for Cell {
    fn from(x: bool) -> Cell {
        Cell::Bool(x)
    }
}
impl From<String> for Cell {
    fn from(x: String) -> Cell {
        Cell::Text(x)
    }
}
impl From<&str> for Cell {
    fn from(x: &str) -> Cell {
        Cell::Text(x.to_string())
    }
}
impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(x: Option<T>) -> Cell {
        x.map_or(Cell::Null, Into::into)
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => s.serialize_none(),
            Cell::Bool(x) => s.serialize_bool(*x),
            Cell::UInt(x) => s.serialize_u64(*x),
            Cell::Int(x) => s.serialize_i64(*x),
            Cell::Float(x) => s.serialize_f64(*x),
            Cell::Text(x) => s.serialize_str(x),
        }
    }
}

/// A scalar or a table, as read back: an array is a table.
enum Entry {
    Scalar(Cell),
    Table(Table),
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, string, boolean, null or a list of records")
    }
    fn visit_unit<E>(self) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Null))
    }
    fn visit_none<E>(self) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Entry, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, x: bool) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Bool(x)))
    }
    fn visit_u64<E>(self, x: u64) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::UInt(x)))
    }
    fn visit_i64<E>(self, x: i64) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Int(x)))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Float(x)))
    }
    fn visit_str<E>(self, x: &str) -> Result<Entry, E> {
        Ok(Entry::Scalar(Cell::Text(x.to_string())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
        let mut table: Option<Table> = None;
        while let Some(Record(fields)) = seq.next_element::<Record>()? {
            let t = table.get_or_insert_with(|| Table {
                columns: fields.iter().map(|(k, _)| k.clone()).collect(),
                rows: Vec::new(),
            });
            let same = fields.len() == t.columns.len()
                && fields.iter().zip(&t.columns).all(|((k, _), c)| k == c);
            if !same {
                return Err(de::Error::custom(format!(
                    "record {} has other keys than the first record ({})",
                    t.rows.len(),
                    t.columns.join(", ")
                )));
            }
            t.rows.push(fields.into_iter().map(|(_, v)| v).collect());
        }
        Ok(Entry::Table(table.unwrap_or_default()))
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

/// One record of a table as read back: its fields in order.
struct Record(Vec<(String, Cell)>);

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Record;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a record (an object of scalars)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
                let mut fields = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Entry>()? {
                    match v {
                        Entry::Scalar(c) => fields.push((k, c)),
                        Entry::Table(_) => {
                            return Err(de::Error::custom(format!(
                                "field {k:?} of a record is a list; records hold scalars"
                            )))
                        }
                    }
                }
                Ok(Record(fields))
            }
        }
        d.deserialize_map(V)
    }
}

/// Rows of typed cells under named columns. In JSON: a list of records.
#[derive(Clone, Debug, Default)]
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(columns: &[&str]) -> Table {
        Table {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Add a row: one cell per column, in column order.
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(
            row.len(),
            self.columns.len(),
            "a row of {} cells in a table of columns {:?}",
            row.len(),
            self.columns
        );
        self.rows.push(row);
    }

    pub fn columns(&self) -> &[String] {
        &self.columns
    }
    pub fn rows(&self) -> &[Vec<Cell>] {
        &self.rows
    }
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The cell of `row` in column `column`.
    pub fn get(&self, row: usize, column: &str) -> Option<&Cell> {
        let c = self.columns.iter().position(|x| x == column)?;
        self.rows.get(row).map(|r| &r[c])
    }

    /// Every cell of column `column`, in row order.
    pub fn column(&self, column: &str) -> Option<impl Iterator<Item = &Cell>> {
        let c = self.columns.iter().position(|x| x == column)?;
        Some(self.rows.iter().map(move |r| &r[c]))
    }
}

/// Tables are equal when they hold the same records: an empty table's
/// columns are not part of its value (its JSON is `[]`).
impl PartialEq for Table {
    fn eq(&self, o: &Table) -> bool {
        self.rows == o.rows && (self.rows.is_empty() || self.columns == o.columns)
    }
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Row<'a>(&'a [String], &'a [Cell]);
        impl Serialize for Row<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0.iter().zip(self.1) {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        s.collect_seq(self.rows.iter().map(|r| Row(&self.columns, r)))
    }
}

/// An application's results: scalars, then tables, each in the order given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppReport {
    scalars: Vec<(String, Cell)>,
    tables: Vec<(String, Table)>,
}

impl AppReport {
    fn check_new(&self, name: &str) {
        assert!(
            self.scalar(name).is_none() && self.table(name).is_none(),
            "an application reports {name:?} twice"
        );
    }

    /// Add a scalar.
    pub fn add_scalar(&mut self, name: &str, value: impl Into<Cell>) {
        self.check_new(name);
        self.scalars.push((name.to_string(), value.into()));
    }

    /// Add a table.
    pub fn add_table(&mut self, name: &str, table: Table) {
        self.check_new(name);
        self.tables.push((name.to_string(), table));
    }

    pub fn scalars(&self) -> &[(String, Cell)] {
        &self.scalars
    }
    pub fn tables(&self) -> &[(String, Table)] {
        &self.tables
    }
    pub fn scalar(&self, name: &str) -> Option<&Cell> {
        self.scalars.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
    pub fn is_empty(&self) -> bool {
        self.scalars.is_empty() && self.tables.is_empty()
    }
}

/// A map: every scalar, then every table (flattened into a flow's result).
impl Serialize for AppReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.scalars.len() + self.tables.len()))?;
        for (k, v) in &self.scalars {
            m.serialize_entry(k, v)?;
        }
        for (k, t) in &self.tables {
            m.serialize_entry(k, t)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for AppReport {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AppReport;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an application's results (scalars and lists of records)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AppReport, A::Error> {
                let mut r = AppReport::default();
                while let Some((k, v)) = map.next_entry::<String, Entry>()? {
                    match v {
                        Entry::Scalar(c) => r.scalars.push((k, c)),
                        Entry::Table(t) => r.tables.push((k, t)),
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AppReport {
        let mut t = Table::new(&["page", "at_s", "done_s", "note"]);
        t.push(vec![0u64.into(), 0.5.into(), Some(1.25).into(), "a".into()]);
        t.push(vec![
            1u64.into(),
            2.0.into(),
            None::<f64>.into(),
            "b".into(),
        ]);
        let mut r = AppReport::default();
        r.add_scalar("pages_done", 1u64);
        r.add_scalar("offset", -3i64);
        r.add_scalar("mean_s", Some(0.75));
        r.add_scalar("none_s", None::<f64>);
        r.add_table("pages", t);
        r.add_table("empty", Table::new(&["x"]));
        r
    }

    #[test]
    fn scalars_are_keys_and_tables_lists_of_records_in_order() {
        let json = serde_json::to_string(&sample()).unwrap();
        assert_eq!(
            json,
            r#"{"pages_done":1,"offset":-3,"mean_s":0.75,"none_s":null,"pages":[{"page":0,"at_s":0.5,"done_s":1.25,"note":"a"},{"page":1,"at_s":2.0,"done_s":null,"note":"b"}],"empty":[]}"#
        );
    }

    #[test]
    fn a_report_round_trips_through_json() {
        let r = sample();
        let json = serde_json::to_string(&r).unwrap();
        let back: AppReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(
            back.table("pages").unwrap().get(1, "at_s"),
            Some(&Cell::Float(2.0))
        );
        assert_eq!(back.scalar("pages_done").and_then(Cell::as_u64), Some(1));
    }

    #[test]
    fn records_with_other_keys_are_refused() {
        let e = serde_json::from_str::<AppReport>(r#"{"t":[{"a":1},{"b":2}]}"#).unwrap_err();
        assert!(e.to_string().contains("other keys"), "{e}");
    }

    #[test]
    #[should_panic(expected = "twice")]
    fn a_name_is_reported_once() {
        let mut r = AppReport::default();
        r.add_scalar("x", 1u64);
        r.add_table("x", Table::new(&["a"]));
    }
}
