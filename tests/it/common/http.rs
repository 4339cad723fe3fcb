//! Plain HTTP against a fresh demo network: JSON in, status and JSON out, and the little
//! decoding the checks need.

use cantonscope::demo::{DemoConfig, DemoHandle, start};
use reqwest::StatusCode;
use serde_json::Value;

/// A fresh demo network (the default config) on 127.0.0.1:0.
pub async fn demo() -> DemoHandle {
    start(DemoConfig::default()).await.expect("demo starts")
}

/// GET `url`: the status and the body as JSON (`Null` when it is not JSON).
pub async fn get(url: &str) -> (StatusCode, Value) {
    let r = reqwest::Client::new()
        .get(url)
        .send()
        .await
        .expect("request");
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// POST `body` as JSON to `url`: the status and the body as JSON (`Null` when it is not JSON).
pub async fn post(url: &str, body: &Value) -> (StatusCode, Value) {
    let r = reqwest::Client::new()
        .post(url)
        .json(body)
        .send()
        .await
        .expect("request");
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Daml decimal to units of 1e-10.
pub fn dec(s: &str) -> i128 {
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let f = format!("{f:0<10}");
    i.parse::<i128>().unwrap() * 10_000_000_000 + f.parse::<i128>().unwrap()
}
