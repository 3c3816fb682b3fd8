//! scenario
pub struct Scenario;
