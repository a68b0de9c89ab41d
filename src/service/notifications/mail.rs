//! A mail as sent: its text in the recipient's language (the `mail-*`
//! messages of the catalogues), a plain-text and an HTML part made from the
//! same lines, the RFC 8058 one-click unsubscribe headers, and the SMTP
//! transport (lettre) that sends it.

use fluent_bundle::FluentArgs;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::i18n::{self, Locale};

/// A line of a mail's body: words, or words followed by a link.
#[derive(Debug, Clone)]
pub enum Line {
    Text(String),
    Link(String, String),
    Blank,
}

/// A mail ready to be sent.
#[derive(Debug, Clone)]
pub struct Composed {
    pub subject: String,
    pub lines: Vec<Line>,
    /// The https unsubscribe link of `List-Unsubscribe`; none for account mail.
    pub unsubscribe: Option<String>,
}

/// A message of the mail catalogue in `locale`, the id itself when missing
/// (a test checks that every message exists in every language).
pub fn tr(
    locale: Locale,
    id: &str,
    args: &[(&str, fluent_bundle::FluentValue<'static>)],
) -> String {
    let mut a = FluentArgs::new();
    for (k, v) in args {
        a.set(*k, v.clone());
    }
    i18n::format(locale, id, &a).unwrap_or_else(|| id.to_owned())
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Composed {
    /// The plain-text part.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            match l {
                Line::Text(t) => out.push_str(t),
                Line::Link(t, url) if t.is_empty() => out.push_str(url),
                Line::Link(t, url) => {
                    out.push_str(t);
                    out.push('\n');
                    out.push_str(url);
                }
                Line::Blank => {}
            }
            out.push('\n');
        }
        out
    }

    /// The HTML part: the same lines, links as anchors.
    pub fn html(&self) -> String {
        let mut out = String::from(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head>\
             <body style=\"font-family:sans-serif;line-height:1.4\">",
        );
        for l in &self.lines {
            match l {
                Line::Text(t) => out.push_str(&format!("<p>{}</p>", escape(t))),
                Line::Link(t, url) => out.push_str(&format!(
                    "<p>{} <a href=\"{}\">{}</a></p>",
                    escape(t),
                    escape(url),
                    escape(url)
                )),
                Line::Blank => out.push_str("<br>"),
            }
        }
        out.push_str("</body></html>");
        out
    }
}

/// The SMTP transport, or none (then nothing is sent).
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The host of `Message-ID`s (the public URL's).
    id_host: String,
}

impl Mailer {
    /// A transport for `SMTP_URL` (`smtp://`, `smtps://`, with credentials in
    /// the URL as lettre reads them).
    pub fn new(smtp_url: &str, from: &str, public_url: &str) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|e| anyhow::anyhow!("SMTP_URL is not usable: {e}"))?
            .timeout(Some(std::time::Duration::from_secs(20)))
            .build();
        let from: Mailbox = from
            .parse()
            .map_err(|e| anyhow::anyhow!("MAIL_FROM is not a mailbox ({from:?}): {e}"))?;
        let id_host = url::Url::parse(public_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| "localhost".into());
        Ok(Self {
            transport,
            from,
            id_host,
        })
    }

    /// Sends one mail. `id` makes its `Message-ID`, the same at every attempt,
    /// so a receiving system can tell a retry from a new mail.
    pub async fn send(&self, id: uuid::Uuid, to: &str, mail: &Composed) -> Result<(), String> {
        let to: Mailbox = to.parse().map_err(|e| format!("bad address: {e}"))?;
        let mut b = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(mail.subject.clone())
            .message_id(Some(format!("<{}@{}>", id.simple(), self.id_host)))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("Auto-Submitted"),
                "auto-generated".into(),
            ));
        if let Some(link) = &mail.unsubscribe {
            b = b
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{link}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".into(),
                ));
        }
        let message = b
            .multipart(MultiPart::alternative_plain_html(mail.text(), mail.html()))
            .map_err(|e| format!("the mail could not be built: {e}"))?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mail_message_is_in_every_language() {
        let en: Vec<String> =
            i18n::message_variables(include_str!("../../../web/locales/en/mail.ftl"))
                .into_iter()
                .map(|(id, _, _)| id)
                .collect();
        for text in [
            include_str!("../../../web/locales/cs/mail.ftl"),
            include_str!("../../../web/locales/et/mail.ftl"),
        ] {
            let ids: Vec<String> = i18n::message_variables(text)
                .into_iter()
                .map(|(id, _, _)| id)
                .collect();
            assert_eq!(ids, en);
        }
    }

    #[test]
    fn the_html_part_escapes_what_the_text_part_says() {
        let m = Composed {
            subject: "s".into(),
            lines: vec![
                Line::Text("a <b> & c".into()),
                Line::Link("Open:".into(), "https://x.example/#/match/1?a=1&b=2".into()),
            ],
            unsubscribe: None,
        };
        assert!(
            m.text()
                .contains("a <b> & c\nOpen:\nhttps://x.example/#/match/1?a=1&b=2")
        );
        assert!(m.html().contains("a &lt;b&gt; &amp; c"));
        assert!(
            m.html()
                .contains("href=\"https://x.example/#/match/1?a=1&amp;b=2\"")
        );
    }
}
