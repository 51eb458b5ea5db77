/* pd-approver.c: the approval policy for tool calls.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-approver.h"
#include "pd-callback-slot.h"
#include "pd-json-util.h"
#include "pd-safe-text.h"
#include "pd-tool-private.h"

/* Long enough for any real command line; beyond that a person could not
 * review it anyway, and the note says how much was left out. */
#define SUMMARY_MAX_CHARS 2000
#define OTHER_ARGS_MAX_CHARS 200

G_DEFINE_ENUM_TYPE (PdApprovalPolicy, pd_approval_policy,
                    G_DEFINE_ENUM_VALUE (PD_APPROVAL_POLICY_ASK, "ask"),
                    G_DEFINE_ENUM_VALUE (PD_APPROVAL_POLICY_AUTO, "auto"),
                    G_DEFINE_ENUM_VALUE (PD_APPROVAL_POLICY_DENY, "deny"))

const char *
pd_approval_policy_to_string (PdApprovalPolicy policy)
{
  switch (policy)
    {
    case PD_APPROVAL_POLICY_ASK:
      return "ask";
    case PD_APPROVAL_POLICY_AUTO:
      return "auto";
    case PD_APPROVAL_POLICY_DENY:
      return "deny";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
pd_approval_policy_from_string (const char       *str,
                                PdApprovalPolicy *policy)
{
  static const PdApprovalPolicy all[] = {
    PD_APPROVAL_POLICY_ASK, PD_APPROVAL_POLICY_AUTO, PD_APPROVAL_POLICY_DENY,
  };

  if (str == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (strcmp (str, pd_approval_policy_to_string (all[i])) == 0)
      {
        if (policy != NULL)
          *policy = all[i];
        return TRUE;
      }

  return FALSE;
}

struct _PdApprover
{
  GObject           parent_instance;

  GMutex            mutex;         /* policy, asker */
  GMutex            prompt_mutex;  /* one question at a time */
  PdApprovalPolicy  policy;
  /* PdApprovalFunc, reference-counted so that replacing it while a
   * question is open frees the old one only after that question is
   * answered. */
  PdCallbackSlot   *asker;
};

G_DEFINE_FINAL_TYPE (PdApprover, pd_approver, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_POLICY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_approver_finalize (GObject *object)
{
  PdApprover *self = (PdApprover *) object;

  g_clear_pointer (&self->asker, pd_callback_slot_unref);
  g_mutex_clear (&self->mutex);
  g_mutex_clear (&self->prompt_mutex);

  G_OBJECT_CLASS (pd_approver_parent_class)->finalize (object);
}

static void
pd_approver_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PdApprover *self = PD_APPROVER (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      g_value_set_enum (value, pd_approver_get_policy (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_approver_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  PdApprover *self = PD_APPROVER (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      pd_approver_set_policy (self, g_value_get_enum (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_approver_class_init (PdApproverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_approver_finalize;
  object_class->get_property = pd_approver_get_property;
  object_class->set_property = pd_approver_set_property;

  /* ASK is the default: nothing that changes files runs unseen unless
   * someone chose so. */
  properties[PROP_POLICY] =
    g_param_spec_enum ("policy", NULL, NULL,
                       PD_TYPE_APPROVAL_POLICY,
                       PD_APPROVAL_POLICY_ASK,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_approver_init (PdApprover *self)
{
  g_mutex_init (&self->mutex);
  g_mutex_init (&self->prompt_mutex);
  self->policy = PD_APPROVAL_POLICY_ASK;
}

PdApprover *
pd_approver_new (PdApprovalPolicy policy)
{
  return g_object_new (PD_TYPE_APPROVER, "policy", policy, NULL);
}

PdApprovalPolicy
pd_approver_get_policy (PdApprover *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_APPROVER (self), PD_APPROVAL_POLICY_DENY);

  locker = g_mutex_locker_new (&self->mutex);
  return self->policy;
}

void
pd_approver_set_policy (PdApprover       *self,
                        PdApprovalPolicy  policy)
{
  gboolean changed;

  g_return_if_fail (PD_IS_APPROVER (self));
  g_return_if_fail (policy <= PD_APPROVAL_POLICY_DENY);

  g_mutex_lock (&self->mutex);
  changed = self->policy != policy;
  self->policy = policy;
  g_mutex_unlock (&self->mutex);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POLICY]);
}

/**
 * pd_approver_set_func:
 * @func: (nullable): asks a person; %NULL removes the asker
 * @destroy: (nullable): frees @user_data once no question uses it
 *
 * Sets who answers under the ASK policy: the CLI passes
 * pd_approver_terminal_func(), the GUI a function that shows a dialog on
 * its main thread and waits for the answer.  Never call pd_approver_decide()
 * on the thread @func marshals to: it would wait for itself.
 */
void
pd_approver_set_func (PdApprover     *self,
                      PdApprovalFunc  func,
                      gpointer        user_data,
                      GDestroyNotify  destroy)
{
  PdCallbackSlot *asker = NULL;
  PdCallbackSlot *old;

  g_return_if_fail (PD_IS_APPROVER (self));

  if (func != NULL)
    {
      asker = pd_callback_slot_new (G_CALLBACK (func), user_data, destroy);
    }
  else if (destroy != NULL)
    {
      destroy (user_data);
    }

  g_mutex_lock (&self->mutex);
  old = self->asker;
  self->asker = asker;
  g_mutex_unlock (&self->mutex);

  if (old != NULL)
    pd_callback_slot_unref (old);
}

static void
set_reason (char       **reason,
            const char  *text)
{
  if (reason != NULL)
    *reason = g_strdup (text);
}

/* Why the asker of this thread's question said no, when no person did. */
static GPrivate denial_reason = G_PRIVATE_INIT (g_free);

/**
 * pd_approver_set_denial_reason:
 * @reason: (nullable): why the call is denied, in a few words
 *
 * Called by a #PdApprovalFunc, on its own thread, before it returns
 * %FALSE for another reason than a person saying no: nobody answered in
 * time, the run was stopped, the endpoint or the terminal went away.  The
 * call is then recorded as denied for @reason.  Without it a denial says
 * "the user declined": a run whose endpoint was stopped read as the
 * person's refusal (tried as a new user would).
 */
void
pd_approver_set_denial_reason (const char *reason)
{
  g_private_replace (&denial_reason, g_strdup (reason));
}

/* Whether the call this thread's asker is asked about holds control
 * characters (GINT_TO_POINTER). */
static GPrivate asked_controls;

/* What the strings anywhere in @node hold that is escaped, by kind
 * (pd_tool_text_escapes()). */
static PdToolEscapes
node_escapes (JsonNode *node)
{
  PdToolEscapes found = PD_TOOL_ESCAPES_NONE;

  if (node == NULL)
    return found;
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        found = pd_tool_text_escapes (json_node_get_string (node));
      return found;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          found |= node_escapes (json_array_get_element (array, i));
        return found;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &name, &member))
          found |= pd_tool_text_escapes (name) | node_escapes (member);
        return found;
      }
    case JSON_NODE_NULL:
    default:
      return found;
    }
}

/* A line break or a TAB is text in a command or a file's content, but in
 * a file name it is shown as \n or \t: a name of several lines would read
 * as the preview's own lines ("(a new file)", "+ …") and hide where the
 * write lands (tried as an attacker would).  Another control character
 * is one wherever it is (pd_tool_text_escapes()). */
static PdApproverControls
path_breaks (const char *path)
{
  PdApproverControls found = PD_APPROVER_CONTROLS_NONE;

  for (const char *p = path; p != NULL && *p != '\0'; p++)
    if (*p == '\n')
      found |= PD_APPROVER_CONTROLS_NAME_BREAK;
    else if (*p == '\t')
      found |= PD_APPROVER_CONTROLS_NAME_TAB;
  return found;
}

/**
 * pd_approver_args_controls:
 * @args: (nullable): a call's arguments
 *
 * What the strings of @args (a command, a file's content, an edit's text,
 * a path) hold that changes what runs or how it reads, by kind: control
 * characters (pd_tool_text_is_control(): a CR, ESC, a direction
 * override), letters of another alphabet drawn as Latin ones, characters
 * drawn as the shell's signs, a line break or a TAB in a file name.  The
 * preview and the summary show each as an escape (\r, \x1b, \u202e,
 * \u0430, \u201c), so what a person reads is not the text that runs: bash
 * reads `echo hi \<CR><LF>rm -f victim` as two commands.  Such a question
 * is asked with friction, as a masked one is, and says which
 * (pd_approver_controls_describe()).
 */
PdApproverControls
pd_approver_args_controls (JsonObject *args)
{
  g_autoptr(JsonNode) node = NULL;

  if (args == NULL)
    return PD_APPROVER_CONTROLS_NONE;
  node = json_node_init_object (json_node_alloc (), args);
  return path_breaks (pd_json_get_string (args, "path")) | (PdApproverControls) node_escapes (node);
}

/**
 * pd_approver_args_have_controls:
 * @args: (nullable): a call's arguments
 *
 * Returns: whether @args hold anything pd_approver_args_controls() names
 */
gboolean
pd_approver_args_have_controls (JsonObject *args)
{
  return pd_approver_args_controls (args) != PD_APPROVER_CONTROLS_NONE;
}

/**
 * pd_approver_asked_controls:
 *
 * Called by a #PdApprovalFunc, on its own thread: whether the call it is
 * asked about holds control characters or look-alikes
 * (pd_approver_args_have_controls()), which its summary and preview show
 * as escapes.  It then says so, with pd_approver_controls_describe() of
 * pd_approver_asked_controls_kinds(), and is not answered in one click.
 */
gboolean
pd_approver_asked_controls (void)
{
  return pd_approver_asked_controls_kinds () != PD_APPROVER_CONTROLS_NONE;
}

/**
 * pd_approver_asked_controls_kinds:
 *
 * Returns: pd_approver_args_controls() of the call asked about on this
 *   thread
 */
PdApproverControls
pd_approver_asked_controls_kinds (void)
{
  return (PdApproverControls) GPOINTER_TO_INT (g_private_get (&asked_controls));
}

/**
 * pd_approver_controls_text:
 *
 * Returns: the sentence a question about a command with control
 *   characters says (translated); what an endpoint's question with
 *   "controls" and no "controls_kinds" says
 */
const char *
pd_approver_controls_text (void)
{
  /* Translators: under a command (or a file's content) put to a person to
   * approve; \r, \x1b and \u202e are written as they are shown */
  return _("This command holds control characters, shown as escapes such as \\r, \\x1b or \\u202e. "
           "They change what runs or how it reads: approve only if you expected them.");
}

/**
 * pd_approver_controls_describe:
 * @tool: (nullable): the tool's name
 * @kinds: what the call holds (pd_approver_args_controls())
 *
 * Returns: (transfer full): what a question about the call says, one
 *   sentence a kind (translated): "command" for a shell call's, "call"
 *   for another's, the file name for its line break; the same words in
 *   the terminal prompt, the window's dialog and serve's questions
 */
char *
pd_approver_controls_describe (const char         *tool,
                               PdApproverControls  kinds)
{
  gboolean shell = g_strcmp0 (tool, "shell") == 0;
  GString *out = g_string_new (NULL);

  if (kinds == PD_APPROVER_CONTROLS_CONTROLS && shell)
    {
      g_string_append (out, pd_approver_controls_text ());
      return g_string_free (out, FALSE);
    }
  if (kinds & PD_APPROVER_CONTROLS_CONTROLS)
    g_string_append_printf (out, "%s ", shell
      /* Translators: under a command put to a person to approve; \r,
       * \x1b and \u202e are written as they are shown */
      ? _("This command holds control characters, shown as escapes such as \\r, \\x1b or \\u202e.")
      /* Translators: under a file write or another call put to a person
       * to approve; \r, \x1b and \u202e are written as they are shown */
      : _("This call holds control characters, shown as escapes such as \\r, \\x1b or \\u202e."));
  if (kinds & PD_APPROVER_CONTROLS_LETTERS)
    g_string_append_printf (out, "%s ", shell
      /* Translators: \u0430 is written as it is shown (a Cyrillic a) */
      ? _("This command holds letters from another alphabet that look like Latin ones, shown as "
          "escapes such as \\u0430.")
      : _("This call holds letters from another alphabet that look like Latin ones, shown as "
          "escapes such as \\u0430."));
  if (kinds & PD_APPROVER_CONTROLS_SIGNS)
    g_string_append_printf (out, "%s ", shell
      /* Translators: \u201c and \u2044 are written as they are shown (a
       * curly quote, a fraction slash) */
      ? _("This command holds characters that look like shell syntax (quotes, slashes, dashes), "
          "shown as escapes such as \\u201c or \\u2044.")
      : _("This call holds characters that look like other signs (quotes, slashes, dashes), "
          "shown as escapes such as \\u201c or \\u2044."));
  if (kinds & PD_APPROVER_CONTROLS_NAME_BREAK)
    g_string_append_printf (out, "%s ",
      /* Translators: \n is written as it is shown */
      _("The file name holds a line break, shown as \\n."));
  if (kinds & PD_APPROVER_CONTROLS_NAME_TAB)
    g_string_append_printf (out, "%s ",
      /* Translators: \t is written as it is shown */
      _("The file name holds a tab, shown as \\t."));
  if (out->len == 0)
    return g_string_free (out, TRUE);
  if ((kinds & (PD_APPROVER_CONTROLS_CONTROLS | PD_APPROVER_CONTROLS_LETTERS | PD_APPROVER_CONTROLS_SIGNS)) == 0)
    g_string_append (out, _("The file is written under that name: approve only if you expected it."));
  else if (shell)
    g_string_append (out, _("They change what runs or how it reads: approve only if you expected them."));
  else
    g_string_append (out, _("They change what is written or how it reads: approve only if you "
                            "expected them."));
  return g_string_free (out, FALSE);
}

/* The names of the kinds in serve's "controls_kinds", in bit order. */
static const char *const control_kind_names[] = {
  "controls", "letters", "signs", "name_line_break", "name_tab",
};

/**
 * pd_approver_controls_to_json:
 *
 * Returns: (transfer full): @kinds as serve's "controls_kinds": their
 *   names ("controls", "letters", "signs", "name_line_break", "name_tab")
 */
JsonArray *
pd_approver_controls_to_json (PdApproverControls kinds)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (control_kind_names); i++)
    if (kinds & (1u << i))
      json_array_add_string_element (array, control_kind_names[i]);
  return array;
}

/**
 * pd_approver_controls_from_json:
 * @names: (nullable): an endpoint's "controls_kinds"
 *
 * Returns: the kinds named (a name this version does not know is none)
 */
PdApproverControls
pd_approver_controls_from_json (JsonArray *names)
{
  PdApproverControls kinds = PD_APPROVER_CONTROLS_NONE;

  for (guint i = 0; names != NULL && i < json_array_get_length (names); i++)
    {
      JsonNode *node = json_array_get_element (names, i);
      const char *name;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        continue;
      name = json_node_get_string (node);
      for (guint k = 0; k < G_N_ELEMENTS (control_kind_names); k++)
        if (g_strcmp0 (name, control_kind_names[k]) == 0)
          kinds |= 1u << k;
    }
  return kinds;
}

static char *summarize (PdTool        *tool,
                        PdToolContext *context,
                        JsonObject    *args,
                        gboolean      *whole_out);

/**
 * pd_approver_decide:
 * @tool: the tool about to run
 * @context: (nullable): where it would run, for the preview a person sees
 * @args: (nullable): its arguments
 * @reason: (out) (optional) (transfer full): why, for the log and, on a
 *   denial, for pd_tool_result_new_denied()
 *
 * Decides one call.  May block while a person answers (ASK); safe to call
 * from several threads at once.
 */
PdApprovalDecision
pd_approver_decide (PdApprover     *self,
                    PdTool         *tool,
                    PdToolContext  *context,
                    JsonObject     *args,
                    char          **reason)
{
  g_autoptr(PdCallbackSlot) asker = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *preview = NULL;
  gboolean summary_whole, preview_whole;
  PdApprovalPolicy policy;
  gboolean allowed;

  if (reason != NULL)
    *reason = NULL;

  g_return_val_if_fail (PD_IS_APPROVER (self), PD_APPROVAL_DENY);
  g_return_val_if_fail (PD_IS_TOOL (tool), PD_APPROVAL_DENY);

  switch (pd_tool_get_safety (tool))
    {
    case PD_TOOL_SAFE:
      set_reason (reason, "safe tool: changes engine state only");
      return PD_APPROVAL_ALLOW;

    case PD_TOOL_READ_ONLY:
      set_reason (reason, "read-only tool");
      return PD_APPROVAL_ALLOW;

    case PD_TOOL_MUTATING:
    default:
      break;
    }

  g_mutex_lock (&self->mutex);
  policy = self->policy;
  if (self->asker != NULL)
    asker = pd_callback_slot_ref (self->asker);
  g_mutex_unlock (&self->mutex);

  switch (policy)
    {
    case PD_APPROVAL_POLICY_AUTO:
      set_reason (reason, "approval policy is auto");
      return PD_APPROVAL_ALLOW;

    case PD_APPROVAL_POLICY_DENY:
      set_reason (reason, "approval policy is deny: tools that change files or run commands "
                          "are not allowed in this session");
      return PD_APPROVAL_DENY;

    case PD_APPROVAL_POLICY_ASK:
    default:
      break;
    }

  if (asker == NULL)
    {
      set_reason (reason, "no one to ask: approval policy is ask, but no prompt is available");
      return PD_APPROVAL_DENY;
    }

  summary = summarize (tool, context, args, &summary_whole);
  preview = pd_tool_preview (tool, context, args, &preview_whole);

  /* A person is asked only about what they are shown whole: a command of
   * 206 lines, or a file whose payload stood past the preview's 200th line,
   * was approved from a dialog that ended "… 6 more lines" (tried as an
   * attacker would).  Every asker shows the preview when there is one
   * (the dialog, the card, `run`'s prompt, serve's questions), else the
   * summary.  The model is told why, so it can do it in parts. */
  if (preview != NULL && preview[0] != '\0' ? !preview_whole : !summary_whole)
    {
      set_reason (reason, "too long to show whole for approval (over 2000 lines, a line of over "
                          "10000 characters, or over 256 KiB): not asked, not run; do it in smaller "
                          "parts");
      return PD_APPROVAL_DENY;
    }

  g_mutex_lock (&self->prompt_mutex);
  g_private_replace (&denial_reason, NULL);
  g_private_set (&asked_controls, GINT_TO_POINTER (pd_approver_args_controls (args)));
  allowed = ((PdApprovalFunc) asker->func) (pd_tool_get_name (tool), summary, preview, asker->data);
  g_private_set (&asked_controls, GINT_TO_POINTER (FALSE));
  g_mutex_unlock (&self->prompt_mutex);

  if (allowed)
    {
      g_private_replace (&denial_reason, NULL);
      set_reason (reason, "approved by the user");
      return PD_APPROVAL_ALLOW;
    }

  {
    g_autofree char *why = g_private_get (&denial_reason);

    g_private_set (&denial_reason, NULL);
    set_reason (reason, why != NULL ? why : "the user declined");
  }
  return PD_APPROVAL_DENY;
}

/* Appends @text for a person to read: valid UTF-8, no control or
 * direction characters, at most @max_chars characters.  Returns whether
 * all of it was appended. */
static gboolean
append_sanitized (GString    *out,
                  const char *text,
                  guint       max_chars)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  const char *end = valid + strlen (valid);
  const char *p;

  /* Controls could rewrite the terminal; bidirectional overrides could
   * make a command read differently than it runs, look-alike blanks and
   * other invisible characters hide what it holds: escaped as the preview
   * escapes them, padding said as it says it; a line break and a TAB
   * too, to keep one line. */
  p = pd_tool_text_append_escaped (out, valid, end, TRUE, max_chars);
  if (*p == '\0')
    return TRUE;
  g_string_append_printf (out, " … (%ld more characters not shown)", g_utf8_strlen (p, -1));
  return FALSE;
}

/* A write's or an edit's file: where it lands first when the path as
 * written reads otherwise (`docs/notes.md/./././…/../../.git/hooks/x`). */
static gboolean
append_file (GString       *out,
             PdToolContext *context,
             const char    *path)
{
  g_autofree char *lands = _pd_tool_preview_lands_at (context, path);
  gboolean whole = TRUE;

  if (lands == NULL)
    return append_sanitized (out, path ? path : "(no path)", SUMMARY_MAX_CHARS);

  whole &= append_sanitized (out, lands, SUMMARY_MAX_CHARS);
  g_string_append (out, " (as written: ");
  whole &= append_sanitized (out, path, SUMMARY_MAX_CHARS);
  g_string_append_c (out, ')');

  return whole;
}

static char *
summarize (PdTool        *tool,
           PdToolContext *context,
           JsonObject    *args,
           gboolean      *whole_out)
{
  g_autoptr(GString) out = NULL;
  gboolean whole = TRUE;
  const char *name;
  const char *path;

  g_return_val_if_fail (PD_IS_TOOL (tool), NULL);

  name = pd_tool_get_name (tool);
  out = g_string_new (NULL);
  whole &= append_sanitized (out, name, 64);
  g_string_append (out, ": ");

  path = pd_json_get_string (args, "path");

  if (strcmp (name, "shell") == 0)
    {
      const char *command = pd_json_get_string (args, "command");

      whole &= append_sanitized (out, command ? command : "(no command)", SUMMARY_MAX_CHARS);
    }
  else if (strcmp (name, "write_file") == 0)
    {
      const char *content = pd_json_get_string (args, "content");

      whole &= append_file (out, context, path);
      g_string_append_printf (out, " (%" G_GSIZE_FORMAT " bytes)", content ? strlen (content) : 0);
    }
  else if (strcmp (name, "edit_file") == 0)
    {
      const char *old_string = pd_json_get_string (args, "old_string");
      const char *new_string = pd_json_get_string (args, "new_string");
      gboolean replace_all = pd_json_get_boolean (args, "replace_all", FALSE);

      whole &= append_file (out, context, path);
      g_string_append_printf (out, " (replace %" G_GSIZE_FORMAT " bytes with %" G_GSIZE_FORMAT
                              " bytes%s)",
                              old_string ? strlen (old_string) : 0,
                              new_string ? strlen (new_string) : 0,
                              replace_all ? ", every occurrence" : "");
    }
  else if (strcmp (name, "grep") == 0)
    {
      const char *pattern = pd_json_get_string (args, "pattern");

      whole &= append_sanitized (out, pattern ? pattern : "", SUMMARY_MAX_CHARS);
      g_string_append (out, " in ");
      whole &= append_sanitized (out, path ? path : ".", SUMMARY_MAX_CHARS);
    }
  else if (strcmp (name, "plan") == 0)
    {
      const char *verb = pd_json_get_string (args, "verb");

      whole &= append_sanitized (out, verb ? verb : "(no verb)", 64);
    }
  else if (path != NULL || strcmp (name, "read_file") == 0 || strcmp (name, "list_dir") == 0)
    {
      whole &= append_sanitized (out, path ? path : ".", SUMMARY_MAX_CHARS);
    }
  else if (args != NULL)
    {
      /* A tool this file does not know: its arguments, short.  Nothing
       * here names file contents, but long values are cut all the same. */
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), args);
      g_autofree char *json = json_to_string (node, FALSE);

      whole &= append_sanitized (out, json, OTHER_ARGS_MAX_CHARS);
    }

  *whole_out = whole;
  return g_string_free (g_steal_pointer (&out), FALSE);
}


/**
 * pd_approver_summarize:
 *
 * One line for a prompt: `shell: <command>`, `write_file: <path> (N bytes)`,
 * … .  File contents and replacement text are never included, only their
 * sizes; everything is escaped for a terminal.
 *
 * Returns: (transfer full): the summary
 */
char *
pd_approver_summarize (PdTool     *tool,
                       JsonObject *args)
{
  gboolean whole;

  return summarize (tool, NULL, args, &whole);
}

/**
 * pd_approver_summary_is_whole:
 * @tool: (nullable): the name of the tool a question asks about
 * @summary: (nullable): the question's one-line summary
 *
 * Whether the one-line summary of a call of @tool says all the call asks:
 * a shell command's does (the command is all the model chose; the folder
 * is its session's), if it is one line.  An edit's or a write's does not:
 * it names the file and counts bytes, and the text it puts in is only in
 * pd_tool_preview(), as is everything of a tool this file does not know
 * (an endpoint's "command" for one is a path or a URL).  A summary writes
 * a line break as `\n` and leaves a backslash as it is, so a summary with
 * a backslash may be two lines shown as one: `ls # list\ntouch x` read as
 * all comment and ran its second line from a notification (tried as an
 * attacker would).  A question whose summary is not whole is never
 * approved from where only the summary is shown.
 *
 * Returns: whether the summary is the whole request
 */
gboolean
pd_approver_summary_is_whole (const char *tool,
                              const char *summary)
{
  return g_strcmp0 (tool, "shell") == 0 && summary != NULL &&
         strpbrk (summary, "\\\n\r") == NULL;
}
