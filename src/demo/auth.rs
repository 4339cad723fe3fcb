//! HS256 JSON Web Tokens for the demo ledger API: issuing demo tokens and checking the bearer
//! token of every ledger request. Token values are never logged.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const SECRET: &[u8] = b"cantonscope-demo-network-hs256-secret-not-for-production";

/// The shared secret the demo ledger API verifies HS256 tokens with.
pub fn demo_secret() -> &'static [u8] {
    SECRET
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
}

fn mac() -> HmacSha256 {
    // HMAC accepts keys of any length; this cannot fail.
    match HmacSha256::new_from_slice(SECRET) {
        Ok(m) => m,
        Err(_) => unreachable!("HMAC-SHA256 accepts keys of any length"),
    }
}

/// An HS256 JWT for ledger API user `sub`, expiring at `exp_unix` (seconds since the epoch).
pub fn make_token(sub: &str, exp_unix: i64) -> String {
    let header = b64().encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = serde_json::json!({
        "sub": sub,
        "aud": "https://daml.com/jwt/aud/participant/demo",
        "scope": "daml_ledger_api",
        "exp": exp_unix,
    });
    let payload = b64().encode(claims.to_string());
    let signing_input = format!("{header}.{payload}");
    let mut m = mac();
    m.update(signing_input.as_bytes());
    let sig = b64().encode(m.finalize().into_bytes());
    format!("{signing_input}.{sig}")
}

/// Why a token was refused (never includes the token itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    Missing,
    Malformed,
    BadSignature,
    Expired,
}

/// Checks `Authorization: Bearer <jwt>`: HS256 with the demo secret, `exp` (when present) in
/// the future. Returns the subject.
pub fn verify_bearer(header: Option<&str>, now_unix: i64) -> Result<String, TokenError> {
    let header = header.ok_or(TokenError::Missing)?;
    let token = header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("bearer "))
        .ok_or(TokenError::Missing)?
        .trim();
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed);
    };
    let header_json: serde_json::Value = b64()
        .decode(h)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(TokenError::Malformed)?;
    if header_json.get("alg").and_then(|a| a.as_str()) != Some("HS256") {
        return Err(TokenError::Malformed);
    }
    let sig = b64().decode(s).map_err(|_| TokenError::Malformed)?;
    let mut m = mac();
    m.update(h.as_bytes());
    m.update(b".");
    m.update(p.as_bytes());
    m.verify_slice(&sig).map_err(|_| TokenError::BadSignature)?;
    let claims: serde_json::Value = b64()
        .decode(p)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(TokenError::Malformed)?;
    if let Some(exp) = claims.get("exp") {
        let exp = exp.as_i64().ok_or(TokenError::Malformed)?;
        if exp <= now_unix {
            return Err(TokenError::Expired);
        }
    }
    Ok(claims
        .get("sub")
        .and_then(|s| s.as_str())
        .unwrap_or_default()
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_and_expire() {
        let t = make_token("alice", 2_000);
        assert_eq!(
            verify_bearer(Some(&format!("Bearer {t}")), 1_000),
            Ok("alice".into())
        );
        assert_eq!(
            verify_bearer(Some(&format!("Bearer {t}")), 3_000),
            Err(TokenError::Expired)
        );
        assert_eq!(verify_bearer(None, 0), Err(TokenError::Missing));
        assert_eq!(verify_bearer(Some("Basic x"), 0), Err(TokenError::Missing));
        assert_eq!(
            verify_bearer(Some("Bearer a.b"), 0),
            Err(TokenError::Malformed)
        );
        // Flip one character in the middle of the signature.
        let mut forged: Vec<char> = t.chars().collect();
        let i = forged.len() - 10;
        forged[i] = if forged[i] == 'A' { 'B' } else { 'A' };
        let forged: String = forged.into_iter().collect();
        assert_eq!(
            verify_bearer(Some(&format!("Bearer {forged}")), 1_000),
            Err(TokenError::BadSignature)
        );
    }
}
