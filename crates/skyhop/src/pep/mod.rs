//! pep
