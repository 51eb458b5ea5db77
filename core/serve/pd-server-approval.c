/* pd-server-approval.c: one question to a person about a tool call of a
 * run `serve` started.
 *
 * The engine asks from its tool worker thread and blocks there; the
 * question is shown where the run is watched (its WebSocket, or the run
 * record of GET /api/runs/ID for the desktop app) and answered on the
 * server's thread, by an approval_response frame or POST
 * /api/runs/ID/approval.  A plan handed in with exit_plan_mode is asked the
 * same way (odek's page answers it unchanged): its markdown is the
 * question, and a denial may bring feedback, the words to keep planning
 * with.  The worker waits with a deadline (odek's 60 s):
 * no answer is a denial, and so are the run's cancellation and its socket
 * going away.  Nothing approves by default.
 *
 * The question is told redacted (pd_redact()), as the session stores the
 * call: GET /api/runs and the WebSocket show it to anyone with the
 * instance token, and the approver decides on mysql -p[REDACTED] shop as
 * well as on the password.  The answer applies to the call itself, which
 * runs as the model wrote it.  So a question whose text the redactor
 * changed says so ("masked", a sentence in its description) and is asked
 * with friction: bash runs a masked value in more ways than a reader can
 * follow (API_TOKEN=reboot; N=API_TOKEN; ${!N}).  So is a call that holds
 * control characters ("controls"): its text shows them as escapes (\r,
 * \x1b, \u202e), and `echo hi \<CR><LF>rm -f victim` runs rm on its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-approver.h"
#include "pd-server-private.h"
#include "pd-random.h"
#include "pd-redact.h"
#include "pd-tool.h"

struct _Approval
{
  gatomicrefcount  ref;
  char            *id;            /* "apr-" + 16 hex, odek's shape */
  char            *tool;
  char            *command;       /* what the summary says after "tool: " */
  char            *description;   /* "tool=NAME" but for commands, as odek */
  char            *preview;       /* (nullable) pd_tool_preview(): what the call changes */
  const char      *risk;
  gboolean         allow_trust;
  gboolean         masked;        /* the redactor changed the command or the preview */
  gboolean         controls;      /* the call holds control characters, shown as escapes */
  guint            controls_kinds;  /* which (PdApproverControls) */

  GMutex           mutex;
  GCond            cond;
  ApprovalAnswer   answer;        /* APPROVAL_PENDING until answered, once */
  gint64           deadline;      /* monotonic µs: no answer by then is a denial; 0 until asked */
  char            *feedback;      /* (nullable) what came with the answer */
};

/* odek's risk classes, as far as Plandeck's tools have them. */
static const char *
risk_of (const char *tool)
{
  if (g_strcmp0 (tool, "shell") == 0)
    return "code_execution";
  if (g_strcmp0 (tool, "write_file") == 0 || g_strcmp0 (tool, "edit_file") == 0)
    return "local_write";
  return "unknown";
}

/* Ends @approval's description with @sentence, a reason it is asked with
 * friction. */
static void
describe (Approval   *approval,
          const char *sentence)
{
  char *said = g_strconcat (approval->description, approval->description[0] != '\0' ? " " : "",
                            sentence, NULL);

  g_free (approval->description);
  approval->description = said;
}

/* @preview redacted as the text its lines show: a command's or a file's
 * lines, laid out by pd_tool_preview() with a prefix before each
 * (_pd_tool_preview_append_lines(): "$ " then "  " for a command, "+ "
 * and "- " for a file's lines), are redacted without their prefixes and
 * laid out again.  Redacted with them, the indent of a command's line
 * after a continuation read as the command's: PGPASSWORD=\<newline>X was
 * an empty value and showed X (tried as an attacker would). */
static char *
redact_preview (const char *tool,
                const char *preview)
{
  if (preview == NULL)
    return NULL;
  if (g_strcmp0 (tool, "shell") == 0)
    return pd_redact_laid_out (preview, "$ ", "  ", NULL);
  if (g_strcmp0 (tool, "write_file") == 0)
    return pd_redact_laid_out (preview, "+ ", "+ ", NULL);
  if (g_strcmp0 (tool, "edit_file") == 0)
    {
      g_autofree char *taken_out = pd_redact_laid_out (preview, "- ", "- ", NULL);

      return pd_redact_laid_out (taken_out, "+ ", "+ ", NULL);
    }
  return pd_redact (preview, NULL);
}

/* @text as the approval's summary writes a command (pd-approver.c's
 * append_sanitized()): a line break as \n, a tab as \t, the rest as the
 * preview has it already. */
static char *
summary_spelling (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\n')
        g_string_append (out, "\\n");
      else if (*p == '\t')
        g_string_append (out, "\\t");
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

/* The command a shell tool's @preview shows ("$ " then "  " before each
 * line, pd_shell_tool_preview()), or NULL. */
static char *
preview_command (const char *preview)
{
  const char *p = preview;
  GString *out;

  while (p != NULL && !g_str_has_prefix (p, "$ "))
    {
      p = strchr (p, '\n');
      p = p != NULL ? p + 1 : NULL;
    }
  if (p == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (p += 2; *p != '\0'; p += 2)
    {
      const char *end = strchr (p, '\n');

      if (end == NULL)
        end = p + strlen (p);
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append_len (out, p, end - p);
      if (*end == '\0' || !g_str_has_prefix (end + 1, "  "))
        break;
      p = end + 1;
    }
  return g_string_free (out, FALSE);
}

/* A shell command's summary (@told: the command on one line, its line
 * breaks written \n) redacted as the command it shows: laid out again
 * from the command the preview shows, redacted, when that lays out to
 * @told exactly.  Redacted as written, a continuation was \\n, no line
 * break, and an option on a continued line was no longer its command's:
 * "docker login \\n -u bob \\n -p X reg" kept X (tried as an attacker
 * would).  Otherwise (a cut summary, a CR) @told as written. */
static char *
redact_shell_summary (const char *told,
                      const char *preview)
{
  g_autofree char *command = preview != NULL ? preview_command (preview) : NULL;
  g_autofree char *spelled = command != NULL ? summary_spelling (command) : NULL;
  g_autofree char *redacted = NULL;

  if (spelled == NULL || strcmp (spelled, told) != 0)
    return pd_redact (told, NULL);
  redacted = pd_redact (command, NULL);
  return summary_spelling (redacted);
}

/* @text with each escape of a look-alike blank (\u00a0, \u3000: a space
 * separator, as pd_tool_text_append_escaped() writes it) put back as the
 * blank it is, to redact: escaped, `--password\u00a0S3cret` was one word
 * to the redactor and kept S3cret in sight, and `PGPASSWORD=S3cret\u00a0psql`
 * one value, psql hidden under its mask.  Escaped again after
 * (pd_tool_text_escaped()) when the redactor changed it. */
static char *
blanks_unescaped (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; )
    {
      if (p[0] == '\\' && p[1] == 'u')
        {
          gunichar c = 0;
          int i;

          for (i = 2; i < 6 && g_ascii_isxdigit (p[i]) && !g_ascii_isupper (p[i]); i++)
            c = c * 16 + g_ascii_xdigit_value (p[i]);
          if (i == 6 && c != ' ' && g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR)
            {
              g_string_append_unichar (out, c);
              p += 6;
              continue;
            }
        }
      g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

/* @redacted (the redactor's @seen), escaped again if the redactor changed
 * it and @text is a call's (@escaped), else @text as it was. */
static char *
escaped_again (char       *redacted,
               const char *seen,
               const char *text,
               gboolean    escaped,
               gboolean    one_line)
{
  char *shown;

  if (redacted == NULL || g_strcmp0 (redacted, seen) == 0)
    {
      g_free (redacted);
      return g_strdup (text);
    }
  if (!escaped)
    return redacted;
  shown = pd_tool_text_escaped (redacted, one_line);
  g_free (redacted);
  return shown;
}

/**
 * _pd_server_approval_new:
 * @summary: pd_approver_summarize()'s line ("shell: make check"): never a
 *   file's contents
 * @preview: (nullable): pd_tool_preview(): the lines an edit takes out and
 *   puts in, a file's content, a command and its folder
 *
 * Any thread.
 */
Approval *
_pd_server_approval_new (const char *tool,
                         const char *summary,
                         const char *preview)
{
  Approval *approval = g_new0 (Approval, 1);
  g_autofree char *prefix = g_strdup_printf ("%s: ", tool);
  g_autofree char *hex = pd_random_hex (8);
  const char *told = summary && g_str_has_prefix (summary, prefix) ? summary + strlen (prefix)
                                                                   : summary ? summary : "";
  /* A plan's text is the model's as it is (_pd_server_approval_new_plan()). */
  gboolean escaped = g_strcmp0 (tool, PD_SERVER_PLAN_TOOL) != 0;
  g_autofree char *told_seen = NULL;
  g_autofree char *preview_seen = NULL;

  g_atomic_ref_count_init (&approval->ref);
  approval->id = g_strconcat ("apr-", hex, NULL);
  approval->tool = g_strdup (tool);
  told_seen = escaped ? blanks_unescaped (told) : g_strdup (told);
  preview_seen = escaped ? blanks_unescaped (preview) : g_strdup (preview);
  approval->command = escaped_again (g_strcmp0 (tool, "shell") == 0 ? redact_shell_summary (told_seen, preview_seen)
                                                                     : pd_redact (told_seen, NULL),
                                     told_seen, told, escaped, TRUE);
  approval->description = g_strcmp0 (tool, "shell") == 0 ? g_strdup ("") : g_strdup_printf ("tool=%s", tool);
  approval->preview = preview != NULL ? escaped_again (redact_preview (tool, preview_seen), preview_seen, preview, escaped, FALSE)
                                      : NULL;
  /* What the approver reads differs from what runs: said, never hidden. */
  approval->masked = strcmp (approval->command, told) != 0 || g_strcmp0 (approval->preview, preview) != 0;
  if (approval->masked)
    describe (approval, _pd_server_approval_masked_text ());
  approval->risk = risk_of (tool);
  /* odek: no trust for destructive, blocked or unknown classes.  Nor from
   * a masked question: the person could not read whole what they would
   * trust ("Always for This Session" on mysql -p[REDACTED] trusted every
   * later command of the class, masked or not). */
  approval->allow_trust = strcmp (approval->risk, "unknown") != 0 && !approval->masked;
  approval->answer = APPROVAL_PENDING;
  g_mutex_init (&approval->mutex);
  g_cond_init (&approval->cond);
  return approval;
}

/**
 * _pd_server_approval_new_plan:
 * @markdown: the plan exit_plan_mode hands in (model text), at most
 *   %PD_SERVER_PLAN_MAX_BYTES
 *
 * A plan review as odek's page asks any non-shell tool: "command" is the
 * plan, "description" tool=exit_plan_mode.  Its risk is a class of its own,
 * which odek's page shows as a word ("plan_review") and styles as none;
 * nothing trusts it.  Any thread.
 */
Approval *
_pd_server_approval_new_plan (const char *markdown)
{
  Approval *approval = _pd_server_approval_new (PD_SERVER_PLAN_TOOL, NULL, markdown);

  g_free (approval->command);
  approval->command = pd_redact (markdown, NULL);
  /* A plan is read, never run: a masked value in it hides nothing that runs. */
  approval->masked = FALSE;
  g_free (approval->description);
  approval->description = g_strdup_printf ("tool=%s", PD_SERVER_PLAN_TOOL);
  approval->risk = PD_SERVER_PLAN_RISK;
  approval->allow_trust = FALSE;
  return approval;
}

gboolean
_pd_server_approval_is_plan (Approval *approval)
{
  return g_strcmp0 (approval->risk, PD_SERVER_PLAN_RISK) == 0;
}

Approval *
_pd_server_approval_ref (Approval *approval)
{
  g_atomic_ref_count_inc (&approval->ref);
  return approval;
}

void
_pd_server_approval_unref (Approval *approval)
{
  if (!g_atomic_ref_count_dec (&approval->ref))
    return;
  g_free (approval->id);
  g_free (approval->tool);
  g_free (approval->command);
  g_free (approval->description);
  g_free (approval->preview);
  g_free (approval->feedback);
  g_mutex_clear (&approval->mutex);
  g_cond_clear (&approval->cond);
  g_free (approval);
}

const char *
_pd_server_approval_get_id (Approval *approval)
{
  return approval->id;
}

const char *
_pd_server_approval_get_risk (Approval *approval)
{
  return approval->risk;
}

/* Whether the redactor masked part of what the question tells: it is
 * asked with friction. */
gboolean
_pd_server_approval_is_masked (Approval *approval)
{
  return approval->masked;
}

/* What the call holds that is shown as escapes
 * (pd_approver_asked_controls_kinds()): if anything, its description says
 * what, in the words of the terminal prompt and the window's dialog
 * (pd_approver_controls_describe()), and it is asked with friction as a
 * masked one is. */
void
_pd_server_approval_set_controls (Approval *approval,
                                  guint     kinds)
{
  g_autofree char *said = NULL;

  if (kinds == 0 || approval->controls)
    return;
  approval->controls = TRUE;
  approval->controls_kinds = kinds;
  /* Trusted from a question the person could not read as it runs: no. */
  approval->allow_trust = FALSE;
  said = pd_approver_controls_describe (approval->tool, kinds);
  describe (approval, said);
}

/* Whether the question is asked with friction each time (REST and WS):
 * what the approver reads is not all of what runs, masked or escaped. */
gboolean
_pd_server_approval_needs_friction (Approval *approval)
{
  return approval->masked || approval->controls;
}

/* The sentence a masked question's description ends with (translated). */
const char *
_pd_server_approval_masked_text (void)
{
  return _("Parts of this command are hidden as secrets ([REDACTED]). What they hold is not "
           "shown and may be run by the command: approve only if you trust where it came from.");
}

/* The event that @approval is asked (@outcome %NULL) or answered
 * (approved, denied, timed_out or cancelled): its id, and what is asked as
 * the question says it, the tool and its risk, never the command (an
 * answer's row on the Events page said only its id).  Any thread. */
PdEvent *
_pd_server_approval_new_event (Approval   *approval,
                               const char *run_id,
                               const char *session_id,
                               const char *outcome)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "approval_id", approval->id);
  json_object_set_string_member (data, "risk", approval->risk);
  if (outcome != NULL)
    json_object_set_string_member (data, "outcome", outcome);
  /* (the event takes @data) */
  return pd_event_new_full (outcome != NULL ? PD_EVENT_APPROVAL_RESOLVED : PD_EVENT_APPROVAL_REQUESTED,
                            run_id, session_id, 0, approval->tool, data);
}

gboolean
_pd_server_approval_allows_trust (Approval *approval)
{
  return approval->allow_trust;
}

/* APPROVAL_PENDING until answered (any thread). */
ApprovalAnswer
_pd_server_approval_get_answer (Approval *approval)
{
  ApprovalAnswer answer;

  g_mutex_lock (&approval->mutex);
  answer = approval->answer;
  g_mutex_unlock (&approval->mutex);
  return answer;
}

/**
 * _pd_server_approval_answer:
 *
 * Any thread.  The first answer counts; later ones change nothing.
 *
 * Returns: %TRUE when this was the answer
 */
gboolean
_pd_server_approval_answer (Approval       *approval,
                            ApprovalAnswer  answer)
{
  return _pd_server_approval_answer_full (approval, answer, NULL);
}

/**
 * _pd_server_approval_answer_full:
 * @feedback: (nullable): a person's words with a denial (a plan review's
 *   Keep planning); kept valid UTF-8, cut at %PD_SERVER_FEEDBACK_MAX_BYTES
 *
 * As _pd_server_approval_answer().  Any thread.
 */
gboolean
_pd_server_approval_answer_full (Approval       *approval,
                                 ApprovalAnswer  answer,
                                 const char     *feedback)
{
  gboolean taken = FALSE;

  g_return_val_if_fail (answer != APPROVAL_PENDING, FALSE);

  g_mutex_lock (&approval->mutex);
  if (approval->answer == APPROVAL_PENDING)
    {
      approval->answer = answer;
      if (feedback != NULL && *feedback != '\0')
        {
          gsize len = strlen (feedback);
          const char *end = feedback + MIN (len, PD_SERVER_FEEDBACK_MAX_BYTES);

          /* A cut lands on a character's start. */
          if (len > PD_SERVER_FEEDBACK_MAX_BYTES)
            end = g_utf8_find_prev_char (feedback, end + 1);
          approval->feedback = g_utf8_make_valid (feedback, end - feedback);
        }
      taken = TRUE;
      g_cond_broadcast (&approval->cond);
    }
  g_mutex_unlock (&approval->mutex);
  return taken;
}

static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  _pd_server_approval_answer (user_data, APPROVAL_CANCELLED);
}

/**
 * _pd_server_approval_start_clock:
 * @timeout_usec: how long a person has to answer
 *
 * The time to answer starts: the question tells what is left of it
 * (_pd_server_approval_to_json()), and _pd_server_approval_wait() ends
 * then.  Any thread, before the question is told.
 */
void
_pd_server_approval_start_clock (Approval *approval,
                                 gint64    timeout_usec)
{
  g_mutex_lock (&approval->mutex);
  approval->deadline = g_get_monotonic_time () + timeout_usec;
  g_mutex_unlock (&approval->mutex);
}

/**
 * _pd_server_approval_wait:
 *
 * On the engine's worker thread: blocks until @approval is answered, @cancellable
 * is cancelled, or the time _pd_server_approval_start_clock() gave is up
 * (APPROVAL_TIMEOUT; %PD_SERVER_APPROVAL_TIMEOUT from now if none was).
 */
ApprovalAnswer
_pd_server_approval_wait (Approval     *approval,
                          GCancellable *cancellable)
{
  gint64 deadline;
  gulong handler = 0;
  ApprovalAnswer answer;

  /* Runs the handler at once when cancelled already. */
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), approval, NULL);

  g_mutex_lock (&approval->mutex);
  if (approval->deadline == 0)
    approval->deadline = g_get_monotonic_time () + (gint64) PD_SERVER_APPROVAL_TIMEOUT * G_USEC_PER_SEC;
  deadline = approval->deadline;
  while (approval->answer == APPROVAL_PENDING)
    if (!g_cond_wait_until (&approval->cond, &approval->mutex, deadline))
      {
        if (approval->answer == APPROVAL_PENDING)
          approval->answer = APPROVAL_TIMEOUT;
      }
  answer = approval->answer;
  g_mutex_unlock (&approval->mutex);

  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return answer;
}

/* (nullable): the feedback that came with the answer (any thread) */
char *
_pd_server_approval_dup_feedback (Approval *approval)
{
  char *feedback;

  g_mutex_lock (&approval->mutex);
  feedback = g_strdup (approval->feedback);
  g_mutex_unlock (&approval->mutex);
  return feedback;
}

/* odek's approval_request fields: {id, risk, command, description,
 * is_operation, allow_trust, friction}; the type and friction are the
 * caller's (always with "masked").  Plandeck's own: tool, preview,
 * expires_in_ms, masked: true when the redactor changed the text,
 * controls: true when the call holds control characters or look-alikes,
 * and controls_kinds: which ("controls", "letters", "signs",
 * "name_line_break", "name_tab"; odek's page ignores members it does not
 * know). */
JsonObject *
_pd_server_approval_to_json (Approval *approval)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "id", approval->id);
  json_object_set_string_member (object, "tool", approval->tool);
  json_object_set_string_member (object, "risk", approval->risk);
  json_object_set_string_member (object, "command", approval->command);
  json_object_set_string_member (object, "description", approval->description);
  /* Plandeck's own: what the call changes, for a dialog to show whole. */
  if (approval->preview != NULL)
    json_object_set_string_member (object, "preview", approval->preview);
  json_object_set_boolean_member (object, "is_operation", FALSE);
  json_object_set_boolean_member (object, "allow_trust", approval->allow_trust);
  if (approval->masked)
    json_object_set_boolean_member (object, "masked", TRUE);
  if (approval->controls)
    {
      json_object_set_boolean_member (object, "controls", TRUE);
      /* Plandeck's own: which, for a client to say it in its words */
      json_object_set_array_member (object, "controls_kinds",
                                    pd_approver_controls_to_json (approval->controls_kinds));
    }
  /* Plandeck's own: how long until no answer is a denial, as a span (the
   * endpoint's clock and the app's need not agree).  A card said nothing
   * of it, and the question went away by itself (tried as a new user
   * would). */
  g_mutex_lock (&approval->mutex);
  if (approval->deadline != 0 && approval->answer == APPROVAL_PENDING)
    json_object_set_int_member (object, "expires_in_ms",
                                MAX (approval->deadline - g_get_monotonic_time (), 0) / 1000);
  g_mutex_unlock (&approval->mutex);
  return object;
}

/* "approve", "deny", "trust" → the answer; FALSE for anything else. */
gboolean
_pd_server_approval_parse_action (const char     *action,
                                  ApprovalAnswer *answer)
{
  if (g_strcmp0 (action, "approve") == 0)
    *answer = APPROVAL_APPROVE;
  else if (g_strcmp0 (action, "deny") == 0)
    *answer = APPROVAL_DENY;
  else if (g_strcmp0 (action, "trust") == 0)
    *answer = APPROVAL_TRUST;
  else
    return FALSE;
  return TRUE;
}
