//! placeholder
use crate::{RunResult, SimError};
#[derive(Clone, Debug, Default)]
pub struct RunOptions { pub trace: bool }
pub fn run(_s: &crate::scenario::Scenario, _seed: u64, _o: &RunOptions) -> Result<RunResult, SimError> { unimplemented!() }
