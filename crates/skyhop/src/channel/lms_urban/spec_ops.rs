//! What the engine asks of an urban-shadowing spec (`ChannelSpecOps`).

use super::{LmsUrban, LmsUrbanSpec, MaskTable};
use crate::channel::table::{self, Loaded};
use crate::channel::{ApplyTo, ChannelCtx, ChannelSpecOps, HopGeometry};
use std::sync::Arc;

impl ChannelSpecOps for LmsUrbanSpec {
    type Model = LmsUrban;
    fn build(&self, ctx: &ChannelCtx) -> LmsUrban {
        LmsUrban::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        LmsUrbanSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
    fn resolve_paths(&mut self, base: &std::path::Path) {
        if let Some(f) = self.masking_file.as_mut() {
            *f = table::resolve(base, f);
        }
    }
    /// Read the masking file and check the satellite's position is known.
    fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        if geometry.is_none() && (self.elevation_deg.is_none() || self.azimuth_deg.is_none()) {
            let k = if self.elevation_deg.is_none() {
                "elevation_deg"
            } else {
                "azimuth_deg"
            };
            return Err((
                k.into(),
                "missing: lms-urban needs the satellite's elevation and azimuth; give elevation_deg and azimuth_deg, or positions (lat/lon, geo_longitude) on the link's nodes".into(),
            ));
        }
        if let Some(f) = &self.masking_file {
            let m = MaskTable::load(f).map_err(|e| ("masking_file".to_string(), e))?;
            self.masks = Loaded(Some(Arc::new(m)));
        }
        Ok(())
    }
    fn memory(&self) -> Option<(u64, &'static str)> {
        Some((
            self.street_bytes(),
            "raise building_width_min_m or shorten section_length_m",
        ))
    }
}
