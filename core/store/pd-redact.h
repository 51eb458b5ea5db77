/* pd-redact.h: secrets out of text before it is stored.
 *
 * Replaced by "[REDACTED]": API keys of the common providers, the token after
 * "Bearer " (the word stays), PEM private key blocks, and the value of
 * password=/passwd:/secret=/token=/api_key=/client_secret… assignments (the
 * key stays).  Matches never take quotes, backslashes, brackets, braces or
 * whitespace, so text that was valid JSON, or a rendered plan line, stays
 * valid after redaction.  Redacting twice changes nothing more.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_REDACTED "[REDACTED]"

char     *pd_redact       (const char *text,
                           guint      *n_redacted);
/* A deep copy of @node with every string value redacted (member names are
 * kept).  The input is never modified: json-glib copies share containers. */
JsonNode *pd_redact_node  (JsonNode   *node,
                           guint      *n_redacted);

G_END_DECLS
