//! Unsigned LEB128 varints (7 bits a byte, the high bit set on every byte but the last), and
//! the keys' posting blocks of both engines written with them (SQLite's `hub_keys`, oldest
//! first; PostgreSQL's `key_blocks`, newest first): after a block's first key, each next one as
//! its steps from the one before, the record time's (never negative in a migration's ledger
//! order, read in the block's direction) and the seq's (zigzagged).

use crate::store::newest::Pos;

/// Appends `v` to `out`.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `*at` of `bytes`, `*at` moved past it (`None`: the bytes end inside one, or
/// it is longer than 64 bits).
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// The bytes of the keys after the first of `keys` (one migration, in ledger order or, with
/// `newest_first`, against it).
pub(crate) fn encode_steps(keys: &[Pos], newest_first: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(keys.len() * 3);
    for pair in keys.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let dt = if newest_first {
            a.1.wrapping_sub(b.1)
        } else {
            b.1.wrapping_sub(a.1)
        };
        put_varint(&mut out, dt as u64);
        let ds = b.2.wrapping_sub(a.2);
        put_varint(&mut out, ((ds << 1) ^ (ds >> 63)) as u64);
    }
    out
}

/// The keys of a block whose first key is `first` and whose next are `rest`, as
/// [`encode_steps`] wrote them (`None`: bytes no writer of this build wrote).
pub(crate) fn decode_steps(first: Pos, rest: &[u8], newest_first: bool) -> Option<Vec<Pos>> {
    let mut keys = Vec::with_capacity(128);
    keys.push(first);
    let (mut at, mut key) = (0, first);
    while at < rest.len() {
        let dt = get_varint(rest, &mut at)? as i64;
        let z = get_varint(rest, &mut at)?;
        let ds = ((z >> 1) as i64) ^ -((z & 1) as i64);
        let time = if newest_first {
            key.1.wrapping_sub(dt)
        } else {
            key.1.wrapping_add(dt)
        };
        key = (key.0, time, key.2.wrapping_add(ds));
        keys.push(key);
    }
    Some(keys)
}
