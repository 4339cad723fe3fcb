//! demo (in progress)
