//! api (in progress)
