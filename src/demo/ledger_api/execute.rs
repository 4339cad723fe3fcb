//! `executeAndWaitForTransaction`: validates an externally signed submission and commits it as
//! the creation of a transfer command.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Value, json};

use super::request::{
    Kind, authorize, canton_error, internal, invalid, not_found, valid_party, valid_user_id,
};
use super::updates::{filter_parties, requested_parties};
use crate::demo::ledger_render::js_transaction;
use crate::demo::reply::{Fail, Reply, done, json_ok};
use crate::demo::state::{Shared, World};
use crate::demo::util::now_micros;

fn req_str<'a>(obj: &'a Value, key: &str, at: &str) -> Result<&'a str, Fail> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(invalid(format!(
            "Invalid value for: body (missing required field '{at}{key}')"
        ))),
        Some(v) => Err(invalid(format!(
            "Invalid value for: body (expected a string at '{at}{key}', got {v})"
        ))),
    }
}

const SIGNATURE_FORMATS: [&str; 5] = [
    "SIGNATURE_FORMAT_UNSPECIFIED",
    "SIGNATURE_FORMAT_RAW",
    "SIGNATURE_FORMAT_DER",
    "SIGNATURE_FORMAT_CONCAT",
    "SIGNATURE_FORMAT_SYMBOLIC",
];
const SIGNING_ALGORITHMS: [&str; 4] = [
    "SIGNING_ALGORITHM_SPEC_UNSPECIFIED",
    "SIGNING_ALGORITHM_SPEC_ED25519",
    "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256",
    "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384",
];
const HASHING_SCHEMES: [&str; 3] = [
    "HASHING_SCHEME_VERSION_UNSPECIFIED",
    "HASHING_SCHEME_VERSION_V2",
    "HASHING_SCHEME_VERSION_V3",
];

struct Submission {
    prepared: Vec<u8>,
    signers: Vec<String>,
    submission_id: String,
    user_id: Option<String>,
    ledger_effects: bool,
    format_parties: Option<(Vec<String>, bool)>,
}

fn validate_submission(body: &Bytes) -> Result<Submission, Fail> {
    use base64::Engine as _;
    let req = match serde_json::from_slice::<Value>(body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(invalid("Invalid value for: body (expected a JSON object)")),
        Err(e) => return Err(invalid(format!("Invalid value for: body ({e})"))),
    };
    let prepared_b64 = req_str(&req, "preparedTransaction", "")?;
    let prepared = base64::engine::general_purpose::STANDARD
        .decode(prepared_b64)
        .ok()
        .filter(|b| !b.is_empty())
        .ok_or_else(|| {
            invalid("Invalid value for: body (preparedTransaction must be non-empty base64)")
        })?;
    let sigs = req
        .get("partySignatures")
        .and_then(|p| p.get("signatures"))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            invalid("Invalid value for: body (missing required field 'partySignatures.signatures')")
        })?;
    if sigs.is_empty() {
        return Err(invalid(
            "Invalid value for: body (partySignatures.signatures must not be empty)",
        ));
    }
    let mut signers = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        let at = format!("partySignatures.signatures[{i}].");
        let party = req_str(s, "party", &at)?;
        if !valid_party(party) {
            return Err(invalid(format!(
                "Invalid value for: body (not a valid party id at '{at}party': {party})"
            )));
        }
        let inner = s
            .get("signatures")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                invalid(format!(
                    "Invalid value for: body ('{at}signatures' must be a non-empty array)"
                ))
            })?;
        for (j, sig) in inner.iter().enumerate() {
            let at = format!("{at}signatures[{j}].");
            let format = req_str(sig, "format", &at)?;
            if !SIGNATURE_FORMATS.contains(&format) {
                return Err(invalid(format!(
                    "Invalid value for: body (unknown value '{format}' at '{at}format')"
                )));
            }
            let signature = req_str(sig, "signature", &at)?;
            if base64::engine::general_purpose::STANDARD
                .decode(signature)
                .map_or(true, |b| b.is_empty())
            {
                return Err(invalid(format!(
                    "Invalid value for: body ('{at}signature' must be non-empty base64)"
                )));
            }
            req_str(sig, "signedBy", &at)?;
            let algo = req_str(sig, "signingAlgorithmSpec", &at)?;
            if !SIGNING_ALGORITHMS.contains(&algo) {
                return Err(invalid(format!(
                    "Invalid value for: body (unknown value '{algo}' at '{at}signingAlgorithmSpec')"
                )));
            }
        }
        signers.push(party.to_string());
    }
    let submission_id = req_str(&req, "submissionId", "")?;
    if submission_id.is_empty() {
        return Err(invalid(
            "Invalid value for: body (submissionId must not be empty)",
        ));
    }
    let scheme = req_str(&req, "hashingSchemeVersion", "")?;
    if !HASHING_SCHEMES.contains(&scheme) {
        return Err(invalid(format!(
            "Invalid value for: body (unknown value '{scheme}' at 'hashingSchemeVersion')"
        )));
    }
    if scheme == "HASHING_SCHEME_VERSION_UNSPECIFIED" {
        return Err(invalid(
            "Invalid value for: body (hashingSchemeVersion must be specified)",
        ));
    }
    let user_id = match req.get("userId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) if valid_user_id(s) => Some(s.clone()),
        Some(v) => {
            return Err(invalid(format!(
                "Invalid value for: body (not a valid user id at 'userId': {v})"
            )));
        }
    };
    match req.get("deduplicationPeriod") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m))
            if m.len() == 1
                && ["DeduplicationDuration", "DeduplicationOffset", "Empty"]
                    .iter()
                    .any(|k| m.contains_key(*k)) => {}
        Some(_) => {
            return Err(invalid(
                "Invalid value for: body ('deduplicationPeriod' must be one of DeduplicationDuration, DeduplicationOffset, Empty)",
            ));
        }
    }
    if let Some(v) = req.get("minLedgerTime")
        && !v.is_null()
        && !v.is_object()
    {
        return Err(invalid(
            "Invalid value for: body (expected an object at 'minLedgerTime')",
        ));
    }
    let mut ledger_effects = false;
    let mut format_parties = None;
    match req.get("transactionFormat") {
        None | Some(Value::Null) => {}
        Some(tf @ Value::Object(_)) => {
            let shape = req_str(tf, "transactionShape", "transactionFormat.")?;
            ledger_effects = match shape {
                "TRANSACTION_SHAPE_LEDGER_EFFECTS" => true,
                "TRANSACTION_SHAPE_ACS_DELTA" | "TRANSACTION_SHAPE_UNSPECIFIED" => false,
                other => {
                    return Err(invalid(format!(
                        "Invalid value for: body (unknown value '{other}' at 'transactionFormat.transactionShape')"
                    )));
                }
            };
            let ef = tf.get("eventFormat").ok_or_else(|| {
                invalid("Invalid value for: body (missing required field 'transactionFormat.eventFormat')")
            })?;
            format_parties = Some(filter_parties(ef, "transactionFormat.eventFormat")?);
        }
        Some(_) => {
            return Err(invalid(
                "Invalid value for: body (expected an object at 'transactionFormat')",
            ));
        }
    }
    Ok(Submission {
        prepared,
        signers,
        submission_id: submission_id.to_string(),
        user_id,
        ledger_effects,
        format_parties,
    })
}

pub(super) async fn execute(
    State(app): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    done(execute_inner(&app, &headers, &body))
}

fn execute_inner(app: &Shared, headers: &HeaderMap, body: &Bytes) -> Reply {
    authorize(headers)?;
    let sub = validate_submission(body)?;
    let net = Arc::clone(&app.net);
    let mut signer_idx = Vec::new();
    for s in &sub.signers {
        match net.lookup_party(s).filter(|p| net.party(*p).local) {
            Some(p) => signer_idx.push(p),
            None => {
                return Err(not_found(
                    "PARTY_NOT_KNOWN_ON_LEDGER",
                    format!(
                        "Party not known on ledger: Party {s} is not hosted on this participant"
                    ),
                    ("PARTY", s),
                ));
            }
        }
    }
    let hash = crate::demo::util::sha256_hex(&sub.prepared);
    let (u, offset) = {
        let mut w = app.write();
        if let Some(user) = &sub.user_id
            && !w.ledger.has_user(user)
        {
            return Err(not_found(
                "USER_NOT_FOUND",
                format!("getting user failed for unknown user \"{user}\""),
                ("USER", user),
            ));
        }
        if !w.ledger.mark_executed(&hash) {
            return Err(canton_error(
                Kind::Exists,
                "DUPLICATE_COMMAND",
                "A command with the given command id has already been successfully processed",
                &[("EXTERNAL_TRANSACTION_HASH", &hash)],
            ));
        }
        let World {
            ledger, generator, ..
        } = &mut *w;
        let idx = generator
            .execute_transfer_command(
                ledger,
                signer_idx[0],
                hash,
                &sub.submission_id,
                now_micros(),
            )
            .ok_or_else(|| internal("the ledger could not commit the transaction"))?;
        let u = ledger.update(idx).map(Arc::clone);
        let offset = ledger.offset_of(idx).unwrap_or(0);
        match u {
            Some(u) => (u, offset),
            None => {
                return Err(internal("the committed transaction is missing"));
            }
        }
    };
    let req = if let Some((names, any)) = &sub.format_parties {
        requested_parties(app, names, *any || names.is_empty())
    } else {
        let mut v = signer_idx.clone();
        v.sort_unstable();
        v
    };
    let Some(tx) = u.tx() else {
        return Err(internal("the committed update is not a transaction"));
    };
    let t = js_transaction(&net, &u, tx, offset, &req, sub.ledger_effects);
    Ok(json_ok(&json!({ "transaction": t })))
}
