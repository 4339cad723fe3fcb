//! Rows sent with `COPY … FROM STDIN (FORMAT binary)`, encoded here in one buffer: a page's
//! updates and keys reach the server in one message each, inserted in batches by the server
//! (no statement executed per row, no parameter arrays unpacked), each row's fields written
//! without a driver call per row.
//!
//! The format (PostgreSQL's `COPY` reference, "Binary Format"): a signature, flags and an
//! extension length; then per row its field count (int16) and per field its length (int32, -1:
//! NULL) and bytes (an int8 big-endian; text and bytea as they are: the connection's encoding
//! is UTF-8); then -1 (int16).

use std::io::Write;

use super::Fail;

/// The signature, flags (none) and header extension length (none).
const HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// Rows of `fields` fields each, encoded for a binary COPY.
pub(super) struct CopyRows {
    buf: Vec<u8>,
    fields: i16,
    rows: u64,
}

impl CopyRows {
    /// Rows of `fields` fields, about `bytes` in all.
    pub(super) fn new(fields: i16, bytes: usize) -> CopyRows {
        let mut buf = Vec::with_capacity(bytes + HEADER.len() + 2);
        buf.extend_from_slice(HEADER);
        CopyRows {
            buf,
            fields,
            rows: 0,
        }
    }

    /// Starts a row; its fields follow.
    pub(super) fn row(&mut self) {
        self.buf.extend_from_slice(&self.fields.to_be_bytes());
        self.rows += 1;
    }

    pub(super) fn int8(&mut self, value: i64) {
        self.buf.extend_from_slice(&8i32.to_be_bytes());
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// A `text` or `bytea` field.
    pub(super) fn bytes(&mut self, value: &[u8]) {
        // A field over 2 GiB cannot be sent; the server would refuse it anyway (1 GB at most).
        let len = i32::try_from(value.len()).unwrap_or(i32::MAX);
        self.buf.extend_from_slice(&len.to_be_bytes());
        self.buf.extend_from_slice(value);
    }

    pub(super) fn null(&mut self) {
        self.buf.extend_from_slice(&(-1i32).to_be_bytes());
    }

    /// How many rows.
    pub(super) fn len(&self) -> u64 {
        self.rows
    }

    /// How many bytes, so far.
    pub(super) fn bytes_so_far(&self) -> usize {
        self.buf.len()
    }

    /// Sends the rows with `sql` (a `COPY … FROM STDIN (FORMAT binary)`) in `tx`: how many the
    /// server took. An error leaves the transaction failed (the page rolled back).
    pub(super) fn send(
        mut self,
        tx: &mut postgres::Transaction<'_>,
        sql: &str,
    ) -> Result<u64, Fail> {
        self.buf.extend_from_slice(&(-1i16).to_be_bytes());
        let mut writer = tx.copy_in(sql)?;
        if let Err(e) = writer.write_all(&self.buf) {
            // The driver's own error inside (a closed connection).
            return Err(match e.into_inner() {
                Some(inner) => match inner.downcast::<postgres::Error>() {
                    Ok(e) => Fail::Pg(*e),
                    Err(e) => Fail::Send(e.to_string()),
                },
                None => Fail::Send("the rows were not sent".to_owned()),
            });
        }
        Ok(writer.finish()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_framed_as_postgresql_reads_binary_copy() {
        let mut rows = CopyRows::new(3, 64);
        rows.row();
        rows.int8(-2);
        rows.bytes(b"ab");
        rows.null();
        assert_eq!(rows.len(), 1);
        let mut want = HEADER.to_vec();
        want.extend_from_slice(&[0, 3]);
        want.extend_from_slice(&[0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]);
        want.extend_from_slice(&[0, 0, 0, 2, b'a', b'b']);
        want.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        assert_eq!(rows.buf, want);
        assert_eq!(
            HEADER.len(),
            19,
            "11 bytes of signature, then flags and extension length"
        );
    }
}
