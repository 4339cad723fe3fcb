//! zstd's dictionary trainer called with its parameters set here. The zstd crate's
//! `from_samples` calls `ZDICT_trainFromBuffer`, which builds a dictionary with five segment
//! sizes and keeps the one that packs a quarter of the samples held out best at zstd's
//! default level: five trainings and five trial packings, a tenth of the CPU of a sync of
//! the demo network (its two migrations each train one). One training with the segment size
//! [`SEGMENT`] takes about a quarter of the time and, on the demo's bodies, packs the bodies
//! after the samples smaller (the book's "One dictionary training, its segment size set"). The
//! call is in zstd's experimental interface, which the zstd crates reach only through `unsafe`
//! code: this module's one `unsafe` block, which hands zstd buffers valid for the lengths it is
//! given.
#![allow(unsafe_code)]

use zstd::zstd_safe::zstd_sys as sys;

/// The segment size (zstd's `k`): the bytes of a sample that go into the dictionary together.
pub const SEGMENT: u32 = 3_000;

/// The length zstd counts a segment's substrings by (its `d`: 6 or 8).
const DMER: u32 = 8;

/// A dictionary of at most `size` bytes trained from `samples` by zstd's fastCover with
/// [`SEGMENT`], its entropy tables made for packing at `level`; `None` when zstd finds nothing
/// to learn (too few or too small samples).
pub fn train(samples: &[impl AsRef<[u8]>], size: usize, level: i32) -> Option<Vec<u8>> {
    let sizes: Vec<usize> = samples.iter().map(|s| s.as_ref().len()).collect();
    let mut flat = Vec::with_capacity(sizes.iter().sum());
    for sample in samples {
        flat.extend_from_slice(sample.as_ref());
    }
    let count = u32::try_from(sizes.len()).ok()?;
    // A segment is at most the dictionary (zstd refuses more).
    let segment = SEGMENT.min(u32::try_from(size).unwrap_or(u32::MAX));
    // Zero is zstd's default for the others: the frequency table's 2^20 entries, every
    // position counted, the whole of the samples trained on.
    let params = sys::ZDICT_fastCover_params_t {
        k: segment,
        d: DMER,
        f: 0,
        steps: 0,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: sys::ZDICT_params_t {
            compressionLevel: level,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let mut dictionary = vec![0u8; size];
    // SAFETY: `dictionary` is valid for writes of its length, `flat` for reads of the sum of
    // `sizes` (it is the samples one after the other) and `sizes` for `count` entries; zstd
    // keeps no pointer past the call, and `ZDICT_isError` reads only the number it is given.
    let written = unsafe {
        let written = sys::ZDICT_trainFromBuffer_fastCover(
            dictionary.as_mut_ptr().cast(),
            dictionary.len(),
            flat.as_ptr().cast(),
            sizes.as_ptr(),
            count,
            params,
        );
        (sys::ZDICT_isError(written) == 0).then_some(written)
    }?;
    dictionary.truncate(written);
    Some(dictionary)
}

#[cfg(test)]
mod tests {
    use super::{SEGMENT, train};

    /// A body of the shape a page has: field names and template ids repeated, ids and amounts
    /// varying.
    fn body(n: u64) -> String {
        format!(
            r#"{{"update_id":"1220{n:060x}","migration_id":0,"record_time":"2026-12-01T00:00:{:02}.000000Z","events_by_id":{{"1220{n:060x}:0":{{"event_type":"created_event","template_id":"a1b2c3:Splice.Amulet:Amulet","contract_id":"00{:064x}","create_arguments":{{"owner":"party-{}::1220ab","amount":{{"initialAmount":"{}.0000000000","createdAt":{{"number":"{}"}}}}}}}}}}}}"#,
            n % 60,
            n.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            n % 13,
            n * 7 % 1000,
            n / 10
        )
    }

    #[test]
    fn a_dictionary_trained_in_one_pass_packs_later_bodies_smaller() {
        let samples: Vec<String> = (0..400).map(body).collect();
        let dictionary = train(&samples, 16 * 1024, 1).expect("trained");
        assert!(
            zstd::zstd_safe::get_dict_id_from_dict(&dictionary).is_some(),
            "a zstd dictionary, which names itself"
        );
        let later: Vec<String> = (1_000..1_100).map(body).collect();
        let mut with = zstd::bulk::Compressor::with_dictionary(1, &dictionary).expect("zstd");
        let packed: usize = later
            .iter()
            .map(|b| with.compress(b.as_bytes()).expect("packed").len())
            .sum();
        let plain: usize = later
            .iter()
            .map(|b| zstd::bulk::compress(b.as_bytes(), 1).expect("packed").len())
            .sum();
        assert!(
            packed * 2 < plain,
            "{packed} bytes with it, {plain} without"
        );
        let back = zstd::bulk::Decompressor::with_dictionary(&dictionary)
            .expect("zstd")
            .decompress(
                &with.compress(later[0].as_bytes()).expect("packed"),
                1 << 16,
            )
            .expect("unpacked");
        assert_eq!(back, later[0].as_bytes());
    }

    #[test]
    fn a_dictionary_smaller_than_a_segment_is_trained_too() {
        // zstd refuses a segment longer than the dictionary: the segment is cut to it.
        let samples: Vec<String> = (0..400).map(body).collect();
        let size = 2_048;
        assert!(u32::try_from(size).expect("small") < SEGMENT);
        let dictionary = train(&samples, size, 1).expect("trained");
        assert!(zstd::zstd_safe::get_dict_id_from_dict(&dictionary).is_some());
    }

    #[test]
    fn samples_too_few_to_learn_from_train_nothing() {
        assert_eq!(train(&["{}"], 1_024, 1), None);
        let none: [&str; 0] = [];
        assert_eq!(train(&none, 1_024, 1), None);
    }
}
