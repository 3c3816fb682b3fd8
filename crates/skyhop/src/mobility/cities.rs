//! The 100 most populous cities (estimated 2025 population) with their
//! coordinates, shipped in `data/cities_top100.csv` (source and licence in
//! `data/README.md`): ground stations by name for constellation scenarios.

const CSV: &str = include_str!("../../data/cities_top100.csv");

/// A city: its name as listed (e.g. "Rio-de-Janeiro") and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct City {
    pub rank: u32,
    pub name: &'static str,
    pub lat_deg: f64,
    pub lon_deg: f64,
}

/// The cities by rank (most populous first).
pub fn cities() -> Vec<City> {
    CSV.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&'static str> = l.split(',').collect();
            City {
                rank: f[0].parse().expect("rank"),
                name: f[1],
                lat_deg: f[2].parse().expect("latitude"),
                lon_deg: f[3].parse().expect("longitude"),
            }
        })
        .collect()
}

/// The city called `name`.
pub fn city(name: &str) -> Option<City> {
    cities().into_iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_has_100_cities_in_rank_order_with_valid_coordinates() {
        let c = cities();
        assert_eq!(c.len(), 100);
        assert!(c.iter().enumerate().all(|(i, x)| x.rank == i as u32 + 1));
        assert!(c
            .iter()
            .all(|x| x.lat_deg.abs() <= 90.0 && x.lon_deg.abs() <= 180.0));
        assert_eq!(c[0].name, "Tokyo");
        let rio = city("Rio-de-Janeiro").unwrap();
        assert!((rio.lat_deg + 22.90).abs() < 0.01);
    }
}
