//! channel
