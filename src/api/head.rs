//! `HEAD` is answered wherever `GET` is: the request is served as a `GET` and
//! the answer is sent with its status and headers but no body (RFC 9110 §9.3.2).
//! Handlers are registered for `GET` only, so without this a `HEAD` met the
//! fallback's 405.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;

pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if req.method() != Method::HEAD {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    req.head_mut().method = Method::GET;
    let res = next.call(req).await?;
    // The body is dropped unread; an event stream ends with it.
    Ok(res.map_body(|_, _| BoxBody::new(())))
}
