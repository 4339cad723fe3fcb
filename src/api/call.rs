//! The request description [`Call<T>`]: one value per endpoint invocation (group, method, path,
//! query, body and the typed decoder), built by the constructors in `api::scan`,
//! `api::validator` and `api::ledger` and executed by `ApiClient::send` / `send_raw`.
//! Also [`RawResponse`], the exact server answer next to its typed decode.

use super::error::ApiError;
use super::json::decode_with_path;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Which API group (and so which base URL and prefix) a call goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// `{scan_url}/api/scan…`
    Scan,
    /// `{validator_url}/api/validator…`
    Validator,
    /// `{ledger_url}/v2…`, with the bearer token.
    Ledger,
}

impl Group {
    /// The path prefix under the base URL.
    pub fn prefix(self) -> &'static str {
        match self {
            Group::Scan => "/api/scan",
            Group::Validator => "/api/validator",
            Group::Ledger => "",
        }
    }
}

impl Group {
    /// A call of this group whose 2xx answer decodes from JSON into `T`. `endpoint` is the
    /// stable name (`"scan GET /v0/scans"`), `path` the percent-encoded path below the prefix.
    pub(crate) fn call<T: DeserializeOwned + 'static>(
        self,
        method: Method,
        endpoint: &'static str,
        path: impl Into<String>,
    ) -> Call<T> {
        Call::new(endpoint, self, method, path.into(), decode_json::<T>)
    }

    /// A JSON `GET` of this group (see [`Group::call`]).
    pub(crate) fn get<T: DeserializeOwned + 'static>(
        self,
        endpoint: &'static str,
        path: impl Into<String>,
    ) -> Call<T> {
        self.call(Method::Get, endpoint, path)
    }

    /// A JSON `POST` of this group with `body` as its JSON body (see [`Group::call`]).
    pub(crate) fn post<T: DeserializeOwned + 'static, B: Serialize + ?Sized>(
        self,
        endpoint: &'static str,
        path: impl Into<String>,
        body: &B,
    ) -> Call<T> {
        self.call(Method::Post, endpoint, path).json_body(body)
    }
}

/// HTTP method of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    /// The method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// What a decoder gets: the response status, headers (lower-case names) and body.
pub struct ResponseParts<'a> {
    pub endpoint: &'static str,
    pub status: u16,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl ResponseParts<'_> {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(self.headers, name)
    }
}

pub(crate) fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A typed decoder of a successful response (shared: a call is cheap to clone).
pub type Decoder<T> = Arc<dyn Fn(&ResponseParts<'_>) -> Result<T, ApiError> + Send + Sync>;

/// One endpoint invocation, ready to send. Cheap to clone; `Send + 'static`.
///
/// A call is the value that travels: the app's requests carry one (as a
/// [`Call<Answer>`](crate::api::ApiCall), see [`Call::into_answer`]), and the runtime, the
/// every-scan session and the headless commands run any call the same way, without knowing which
/// endpoint it is. Two calls are equal when they send the same request (group, method, path,
/// query, body, timeout).
pub struct Call<T> {
    pub(crate) endpoint: &'static str,
    pub(crate) group: Group,
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) query: Vec<(&'static str, String)>,
    pub(crate) body: Option<Vec<u8>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) decode: Decoder<T>,
    /// Sent instead when this endpoint answers "not served" (a removed endpoint's successor);
    /// when that is not served either, the first answer stands.
    pub(crate) fallback: Option<Box<Call<T>>>,
    /// What the call is about (the update id of `/v0/events/{id}`), as given: for the reply's
    /// reader, who need not parse it back out of the path.
    pub(crate) subject: Option<String>,
    /// What the call asks, in words, for logs (`"ledger end"`); the endpoint unless named.
    pub(crate) name: Cow<'static, str>,
}

impl<T> Clone for Call<T> {
    fn clone(&self) -> Self {
        Call {
            endpoint: self.endpoint,
            group: self.group,
            method: self.method,
            path: self.path.clone(),
            query: self.query.clone(),
            body: self.body.clone(),
            timeout: self.timeout,
            decode: Arc::clone(&self.decode),
            fallback: self.fallback.clone(),
            subject: self.subject.clone(),
            name: self.name.clone(),
        }
    }
}

impl<T> PartialEq for Call<T> {
    fn eq(&self, other: &Self) -> bool {
        self.endpoint == other.endpoint
            && self.group == other.group
            && self.method == other.method
            && self.path == other.path
            && self.query == other.query
            && self.body == other.body
            && self.timeout == other.timeout
            && self.fallback == other.fallback
    }
}

impl<T> fmt::Debug for Call<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("endpoint", &self.endpoint)
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("body_len", &self.body.as_ref().map(Vec::len))
            .finish_non_exhaustive()
    }
}

impl<T> Call<T> {
    /// A call with a JSON decoder-free constructor; use the group modules' functions instead.
    pub(crate) fn new(
        endpoint: &'static str,
        group: Group,
        method: Method,
        path: String,
        decode: impl Fn(&ResponseParts<'_>) -> Result<T, ApiError> + Send + Sync + 'static,
    ) -> Self {
        Call {
            endpoint,
            group,
            method,
            path,
            query: Vec::new(),
            body: None,
            timeout: None,
            decode: Arc::new(decode),
            fallback: None,
            subject: None,
            name: Cow::Borrowed(endpoint),
        }
    }

    /// The same request, its answer turned into another type by `f` after decoding.
    pub fn map<U: 'static>(self, f: impl Fn(T) -> U + Send + Sync + Clone + 'static) -> Call<U>
    where
        T: 'static,
    {
        let decode = self.decode;
        let fallback = self.fallback.map(|c| Box::new(c.map(f.clone())));
        Call {
            endpoint: self.endpoint,
            group: self.group,
            method: self.method,
            path: self.path,
            query: self.query,
            body: self.body,
            timeout: self.timeout,
            decode: Arc::new(move |parts| decode(parts).map(&f)),
            fallback,
            subject: self.subject,
            name: self.name,
        }
    }

    /// This call, and `successor` when this endpoint answers that it is not served.
    pub(crate) fn or_if_not_served(mut self, successor: Call<T>) -> Self {
        self.fallback = Some(Box::new(successor));
        self
    }

    /// Records what the call is about (see [`Call::subject`]).
    pub(crate) fn about(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Names what the call asks, in words (see [`Call::name`]).
    #[must_use]
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// What the call asks, in words, for logs (`"ledger end"`, `"event 1220ab…"` with its
    /// subject); the endpoint when its constructor gave no name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the call is about, as its constructor was given it (an update id), if it says.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The call sent when this one's endpoint is not served (see `or_if_not_served`).
    pub fn fallback(&self) -> Option<&Call<T>> {
        self.fallback.as_deref()
    }

    pub(crate) fn query(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.query.push((key, value.into()));
        self
    }

    pub(crate) fn json_body<B: Serialize + ?Sized>(mut self, body: &B) -> Self {
        // Serialising our request structs (string keys, no non-finite floats) cannot fail.
        let bytes = serde_json::to_vec(body).expect("request bodies always serialise to JSON");
        self.body = Some(bytes);
        self
    }

    /// Overrides the client's request timeout for this call (e.g. long ledger queries).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Stable endpoint name, e.g. `"scan POST /v2/updates"`.
    pub fn endpoint(&self) -> &'static str {
        self.endpoint
    }

    /// The API group.
    pub fn group(&self) -> Group {
        self.group
    }

    /// The HTTP method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path below the group prefix, percent-encoded (e.g. `/v0/events/1220ab`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The query parameters (repeated keys for lists).
    pub fn query_params(&self) -> &[(&'static str, String)] {
        &self.query
    }

    /// The JSON request body, if any.
    pub fn body(&self) -> Option<&[u8]> {
        self.body.as_deref()
    }

    /// Runs this call's typed decoder over a response body (what `send` does after a 2xx);
    /// useful to decode recorded responses.
    pub fn decode_response(
        &self,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<T, ApiError> {
        (self.decode)(&ResponseParts {
            endpoint: self.endpoint,
            status,
            headers,
            body,
        })
    }

    /// True for methods that are retried on transient failures (GET).
    pub fn is_idempotent(&self) -> bool {
        self.method == Method::Get
    }
}

/// A successful response: status, headers, the exact body bytes and the typed decode.
#[derive(Debug, Clone)]
pub struct RawResponse<T> {
    pub status: u16,
    /// Header names lower-case, values lossily converted to text.
    pub headers: Vec<(String, String)>,
    /// The body exactly as the server sent it (after gzip decoding).
    pub body: Vec<u8>,
    /// The typed decode of `body`.
    pub typed: T,
}

impl<T> RawResponse<T> {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The body as pretty-printed JSON with every field the server sent, in the server's key
    /// order; `None` when the body is not JSON.
    pub fn pretty_json(&self) -> Option<String> {
        let value: serde_json::Value = serde_json::from_slice(&self.body).ok()?;
        serde_json::to_string_pretty(&value).ok()
    }
}

/// Whatever the server answered to one request, 2xx or not, without retries or
/// classification: what the network views compare (an error answer is an answer too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub status: u16,
    /// Header names lower-case, values lossily converted to text.
    pub headers: Vec<(String, String)>,
    /// The body exactly as the server sent it (after gzip decoding).
    pub body: Vec<u8>,
}

impl Exchange {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// True for a 2xx status.
    pub fn is_success(&self) -> bool {
        (200..=299).contains(&self.status)
    }
}

/// The standard JSON decoder, reporting the endpoint, JSON path and expectation on failure.
/// A body that does not decode and whose `content-type` names something other than JSON is
/// reported as such ([`ApiError::NotJson`]), not as a JSON syntax error.
pub(crate) fn decode_json<T: DeserializeOwned>(parts: &ResponseParts<'_>) -> Result<T, ApiError> {
    decode_with_path::<T>(parts.body).map_err(|(path, detail)| {
        let media = parts
            .header("content-type")
            .map(super::error::media_type)
            .unwrap_or_default();
        if !media.is_empty()
            && !super::error::is_json_media(&media)
            && serde_json::from_slice::<serde::de::IgnoredAny>(parts.body).is_err()
        {
            return ApiError::NotJson {
                endpoint: parts.endpoint,
                status: parts.status,
                content_type: media,
            };
        }
        ApiError::Decode {
            endpoint: parts.endpoint,
            path,
            detail,
        }
    })
}

/// The punctuation a path segment keeps as is: RFC 3986 unreserved marks, sub-delims, `:`, `@`.
const KEPT_PUNCTUATION: &[u8] = b"-._~:@!$&'()*+,;=";

/// Percent-encodes one path segment (keeps RFC 3986 unreserved and sub-delims, `:` and `@`).
pub(crate) fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        let keep = b.is_ascii_alphanumeric() || KEPT_PUNCTUATION.contains(&b);
        if keep && !(segment == "." || segment == "..") {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded() {
        let kept = "-._~:@!$&'()*+,;=";
        for (segment, encoded) in [
            ("party::1220ab", "party::1220ab"),
            ("a/b c#?", "a%2Fb%20c%23%3F"),
            ("..", "%2E%2E"),
            ("é", "%C3%A9"),
            (kept, kept),
            ("\"<>[]{}|^`%", "%22%3C%3E%5B%5D%7B%7D%7C%5E%60%25"),
        ] {
            assert_eq!(encode_segment(segment), encoded, "{segment}");
        }
    }
}
