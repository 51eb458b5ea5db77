/* pd-event.c: the event envelope, its JSON form, and the plan events.
 *
 * The JSON is written by hand rather than through JsonGenerator for two
 * reasons: the envelope's field order is part of the wire format, and a
 * JsonObject's refcount is not atomic, so serialising a shared object from
 * several threads (JsonGenerator copies its root node, which refs the
 * object) would race.  Sealing computes the line once instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-events"

#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gi18n-lib.h>

#include "pd-event.h"
#include "pd-event-private.h"
#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-error.h"

struct _PdEvent
{
  const char *schema;      /* one of the two static schema strings */
  char       *type;
  char       *run_id;
  char       *session_id;
  guint       iteration;   /* 0 = absent, as in odek's omitempty */
  char       *tool;
  gint64      timestamp;   /* unix microseconds, UTC */
  JsonObject *data;        /* never NULL */
  int         sealed;      /* atomic */
  char       *json;        /* the line, computed at sealing */
};

G_DEFINE_QUARK (pd-event-error-quark, pd_event_error)

G_DEFINE_BOXED_TYPE (PdEvent, pd_event, pd_event_ref, pd_event_unref)

/* Sealing is normally done once by the emitting thread; the lock only makes
 * a careless double emit from two threads harmless. */
G_LOCK_DEFINE_STATIC (seal);

static const char * const known_types[] = {
  PD_EVENT_RUN_STARTED,
  PD_EVENT_ITERATION_COMPLETED,
  PD_EVENT_TOOL_CALL_STARTED,
  PD_EVENT_TOOL_CALL_COMPLETED,
  PD_EVENT_TOOL_CALL_FAILED,
  PD_EVENT_SESSION_SAVED,
  PD_EVENT_CONTEXT_TRIMMED,
  PD_EVENT_BUDGET_EXCEEDED,
  PD_EVENT_RUN_COMPLETED,
  PD_EVENT_RUN_FAILED,
  PD_EVENT_PLAN_CREATED,
  PD_EVENT_PLAN_UPDATED,
  PD_EVENT_PLAN_BLOCKED,
  PD_EVENT_PLAN_REASSESSMENT,
  PD_EVENT_PLAN_VALIDATION_FAILED,
  PD_EVENT_SUBAGENT_SPAWNED,
  PD_EVENT_SUBAGENT_COMPLETED,
  PD_EVENT_SIDE_CALL_USAGE,
  PD_EVENT_PLAN_MODE,
  PD_EVENT_PLAN_ARTIFACT_SAVED,
  PD_EVENT_EVENTS_LEFT_OUT,
  NULL,
};

gboolean
pd_event_type_is_known (const char *type)
{
  return type != NULL && g_strv_contains (known_types, type);
}

gboolean
pd_event_type_is_plan (const char *type)
{
  return g_strcmp0 (type, PD_EVENT_PLAN_CREATED) == 0 ||
         g_strcmp0 (type, PD_EVENT_PLAN_UPDATED) == 0 ||
         g_strcmp0 (type, PD_EVENT_PLAN_BLOCKED) == 0 ||
         g_strcmp0 (type, PD_EVENT_PLAN_REASSESSMENT) == 0 ||
         g_strcmp0 (type, PD_EVENT_PLAN_VALIDATION_FAILED) == 0;
}

/* Type names travel into file names of nothing and into SQL only as bound
 * values, but they are matched by consumers, so keep them to the odek
 * alphabet (plus '.', '/' and '-' for namespaced additions). */
static gboolean
type_name_is_valid (const char *type)
{
  gsize len = 0;

  if (type == NULL || *type == '\0')
    return FALSE;

  for (const char *p = type; *p; p++, len++)
    {
      if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) ||
            *p == '_' || *p == '.' || *p == '/' || *p == '-'))
        return FALSE;
    }

  return len <= 64;
}

/* Empty strings mean "absent" on the wire, so store them as NULL; invalid
 * UTF-8 would make the line unreadable to every JSON parser downstream. */
static char *
dup_field (const char *value)
{
  if (value == NULL || *value == '\0')
    return NULL;
  if (!g_utf8_validate (value, -1, NULL))
    return g_utf8_make_valid (value, -1);
  return g_strdup (value);
}

static void
pd_event_clear (PdEvent *event)
{
  g_free (event->type);
  g_free (event->run_id);
  g_free (event->session_id);
  g_free (event->tool);
  g_free (event->json);
  g_clear_pointer (&event->data, json_object_unref);
}

PdEvent *
pd_event_ref (PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  return g_atomic_rc_box_acquire (event);
}

void
pd_event_unref (PdEvent *event)
{
  g_return_if_fail (event != NULL);

  g_atomic_rc_box_release_full (event, (GDestroyNotify) pd_event_clear);
}

/**
 * pd_event_new:
 * @type: the event type, e.g. %PD_EVENT_RUN_STARTED
 *
 * Returns: (transfer full): an unsealed event with schema
 *   %PD_EVENT_SCHEMA, stamped with the current time and an empty data object.
 */
PdEvent *
pd_event_new (const char *type)
{
  PdEvent *event;

  g_return_val_if_fail (type_name_is_valid (type), NULL);

  event = g_atomic_rc_box_new0 (PdEvent);
  event->schema = PD_EVENT_SCHEMA;
  event->type = g_strdup (type);
  event->timestamp = g_get_real_time ();
  event->data = json_object_new ();

  return event;
}

/**
 * pd_event_new_full:
 * @data: (transfer full) (nullable): the data object, owned by the event
 */
PdEvent *
pd_event_new_full (const char *type,
                   const char *run_id,
                   const char *session_id,
                   guint       iteration,
                   const char *tool,
                   JsonObject *data)
{
  PdEvent *event = pd_event_new (type);

  if (event == NULL)
    {
      g_clear_pointer (&data, json_object_unref);
      return NULL;
    }

  event->run_id = dup_field (run_id);
  event->session_id = dup_field (session_id);
  event->iteration = iteration;
  event->tool = dup_field (tool);
  if (data != NULL)
    pd_event_take_data (event, data);

  return event;
}

gboolean
pd_event_is_sealed (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, FALSE);

  return g_atomic_int_get (&event->sealed) != 0;
}

#define RETURN_IF_SEALED(event)                                            \
  G_STMT_START {                                                           \
    if (pd_event_is_sealed (event))                                        \
      {                                                                    \
        g_critical ("%s: event “%s” is sealed (already emitted) and "      \
                    "cannot change", G_STRFUNC, (event)->type);            \
        return;                                                            \
      }                                                                    \
  } G_STMT_END

const char *
pd_event_get_schema (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->schema;
}

const char *
pd_event_get_event_type (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->type;
}

const char *
pd_event_get_run_id (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->run_id;
}

const char *
pd_event_get_session_id (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->session_id;
}

guint
pd_event_get_iteration (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, 0);
  return event->iteration;
}

const char *
pd_event_get_tool (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->tool;
}

gint64
pd_event_get_timestamp (const PdEvent *event)
{
  g_return_val_if_fail (event != NULL, 0);
  return event->timestamp;
}

/**
 * pd_event_get_data:
 *
 * Returns: (transfer none): the data object.  Writable until the event is
 *   sealed, read-only afterwards.  Do not take references to it on other
 *   threads: JsonObject refcounts are not atomic.
 */
JsonObject *
pd_event_get_data (PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return event->data;
}

void
pd_event_set_run_id (PdEvent    *event,
                     const char *run_id)
{
  g_return_if_fail (event != NULL);
  RETURN_IF_SEALED (event);

  g_free (event->run_id);
  event->run_id = dup_field (run_id);
}

void
pd_event_set_session_id (PdEvent    *event,
                         const char *session_id)
{
  g_return_if_fail (event != NULL);
  RETURN_IF_SEALED (event);

  g_free (event->session_id);
  event->session_id = dup_field (session_id);
}

void
pd_event_set_iteration (PdEvent *event,
                        guint    iteration)
{
  g_return_if_fail (event != NULL);
  RETURN_IF_SEALED (event);

  event->iteration = iteration;
}

void
pd_event_set_tool (PdEvent    *event,
                   const char *tool)
{
  g_return_if_fail (event != NULL);
  RETURN_IF_SEALED (event);

  g_free (event->tool);
  event->tool = dup_field (tool);
}

void
pd_event_set_timestamp (PdEvent *event,
                        gint64   unix_usec)
{
  g_return_if_fail (event != NULL);
  RETURN_IF_SEALED (event);

  event->timestamp = unix_usec;
}

/**
 * pd_event_take_data:
 * @data: (transfer full) (nullable): replaces the data object
 */
void
pd_event_take_data (PdEvent    *event,
                    JsonObject *data)
{
  g_return_if_fail (event != NULL);
  if (pd_event_is_sealed (event))
    {
      g_clear_pointer (&data, json_object_unref);
      RETURN_IF_SEALED (event);
    }

  g_clear_pointer (&event->data, json_object_unref);
  event->data = data != NULL ? data : json_object_new ();
}

/* Timestamps ---------------------------------------------------------------- */

/**
 * pd_event_format_timestamp:
 *
 * Always six fractional digits: fixed width keeps lines sortable as text,
 * and every RFC 3339 reader (odek's RFC3339Nano included) accepts it.
 *
 * Returns: (transfer full): e.g. `2026-08-07T12:00:00.123456Z`
 */
char *
pd_event_format_timestamp (gint64 unix_usec)
{
  gint64 secs = unix_usec / G_USEC_PER_SEC;
  gint64 usec = unix_usec % G_USEC_PER_SEC;
  g_autoptr(GDateTime) dt = NULL;

  /* Round towards minus infinity so times before 1970 stay correct. */
  if (usec < 0)
    {
      usec += G_USEC_PER_SEC;
      secs -= 1;
    }

  dt = g_date_time_new_from_unix_utc (secs);
  if (dt == NULL)
    dt = g_date_time_new_from_unix_utc (0);

  return g_strdup_printf ("%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                          g_date_time_get_year (dt),
                          g_date_time_get_month (dt),
                          g_date_time_get_day_of_month (dt),
                          g_date_time_get_hour (dt),
                          g_date_time_get_minute (dt),
                          g_date_time_get_second (dt),
                          (int) usec);
}

static gboolean
read_digits (const char **p,
             guint        count,
             int         *value)
{
  int v = 0;

  for (guint i = 0; i < count; i++)
    {
      if (!g_ascii_isdigit ((*p)[i]))
        return FALSE;
      v = v * 10 + ((*p)[i] - '0');
    }

  *p += count;
  *value = v;
  return TRUE;
}

static gboolean
expect_char (const char **p,
             char         a,
             char         b)
{
  if (**p != a && **p != b)
    return FALSE;
  (*p)++;
  return TRUE;
}

/**
 * pd_event_parse_timestamp:
 *
 * Parses an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
 * GLib's ISO 8601 parser is not used because it also accepts forms RFC 3339
 * forbids (week dates, ordinal dates, missing offsets).  Digits past the
 * microsecond are truncated; a leap second (":60") is refused because GLib
 * cannot represent it.
 */
gboolean
pd_event_parse_timestamp (const char  *text,
                          gint64      *unix_usec,
                          GError     **error)
{
  const char *p = text;
  int year, month, day, hour, minute, second;
  int off_h = 0, off_m = 0, sign = 0;
  gint64 frac = 0;
  g_autoptr(GDateTime) dt = NULL;

  g_return_val_if_fail (text != NULL, FALSE);

  if (!read_digits (&p, 4, &year) || !expect_char (&p, '-', '-') ||
      !read_digits (&p, 2, &month) || !expect_char (&p, '-', '-') ||
      !read_digits (&p, 2, &day) || !expect_char (&p, 'T', 't') ||
      !read_digits (&p, 2, &hour) || !expect_char (&p, ':', ':') ||
      !read_digits (&p, 2, &minute) || !expect_char (&p, ':', ':') ||
      !read_digits (&p, 2, &second))
    goto invalid;

  if (*p == '.')
    {
      guint digits = 0;

      p++;
      while (g_ascii_isdigit (*p))
        {
          if (digits < 6)
            frac = frac * 10 + (*p - '0');
          digits++;
          p++;
        }
      if (digits == 0)
        goto invalid;
      for (; digits < 6; digits++)
        frac *= 10;
    }

  if (*p == 'Z' || *p == 'z')
    p++;
  else if (*p == '+' || *p == '-')
    {
      sign = *p == '-' ? -1 : 1;
      p++;
      if (!read_digits (&p, 2, &off_h) || !expect_char (&p, ':', ':') ||
          !read_digits (&p, 2, &off_m) || off_h > 23 || off_m > 59)
        goto invalid;
    }
  else
    goto invalid;

  if (*p != '\0')
    goto invalid;

  if (year < 1 || month < 1 || month > 12 || day < 1 ||
      !g_date_valid_dmy ((GDateDay) day, (GDateMonth) month, (GDateYear) year) ||
      hour > 23 || minute > 59 || second > 59)
    goto invalid;

  /* Whole seconds only: a double seconds argument would round the fraction. */
  dt = g_date_time_new_utc (year, month, day, hour, minute, second);
  if (dt == NULL)
    goto invalid;

  if (unix_usec != NULL)
    *unix_usec = (g_date_time_to_unix (dt) - sign * (off_h * 3600 + off_m * 60)) * G_USEC_PER_SEC + frac;

  return TRUE;

invalid:
  g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_TIMESTAMP,
               _("Event timestamp “%s” is not an RFC 3339 date-time "
                 "(expected e.g. 2026-08-07T12:00:00.123456Z)"), text);
  return FALSE;
}

/* JSON ---------------------------------------------------------------------- */

static void
append_field (GString    *out,
              const char *key,
              const char *value)
{
  if (value == NULL)
    return;

  g_string_append_c (out, ',');
  pd_json_append_string (out, key);
  g_string_append_c (out, ':');
  pd_json_append_string (out, value);
}

/* Members in insertion order: the producer chose the order of data keys
 * (e.g. steps before version), and consumers diffing lines see it kept. */
static void
append_object (GString    *out,
               JsonObject *object)
{
  GList *members = json_object_get_members (object);
  gboolean first = TRUE;

  g_string_append_c (out, '{');
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;

      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      pd_json_append_string (out, key);
      g_string_append_c (out, ':');
      pd_json_append_node (out, json_object_get_member (object, key), FALSE);
    }
  g_string_append_c (out, '}');
  g_list_free (members);
}

static char *
build_json (PdEvent *event)
{
  GString *out = g_string_sized_new (160);
  g_autofree char *timestamp = pd_event_format_timestamp (event->timestamp);

  g_string_append (out, "{\"schema\":");
  pd_json_append_string (out, event->schema);
  g_string_append (out, ",\"type\":");
  pd_json_append_string (out, event->type);
  append_field (out, "run_id", event->run_id);
  append_field (out, "session_id", event->session_id);
  if (event->iteration > 0)
    g_string_append_printf (out, ",\"iteration\":%u", event->iteration);
  append_field (out, "tool", event->tool);
  append_field (out, "timestamp", timestamp);
  if (json_object_get_size (event->data) > 0)
    {
      g_string_append (out, ",\"data\":");
      append_object (out, event->data);
    }
  g_string_append_c (out, '}');

  return g_string_free (out, FALSE);
}

/**
 * pd_event_seal:
 *
 * Makes the event immutable and computes its JSON line once.  Emitting an
 * event seals it; sealing twice is harmless.
 */
void
pd_event_seal (PdEvent *event)
{
  g_return_if_fail (event != NULL);

  if (pd_event_is_sealed (event))
    return;

  G_LOCK (seal);
  if (!event->sealed)
    {
      json_object_seal (event->data);
      event->json = build_json (event);
      g_atomic_int_set (&event->sealed, 1);
    }
  G_UNLOCK (seal);
}

const char *
_pd_event_peek_json (PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  return pd_event_is_sealed (event) ? event->json : NULL;
}

/**
 * pd_event_to_json:
 *
 * Returns: (transfer full): the compact one-line JSON envelope, without a
 *   trailing newline, in the order schema, type, run_id, session_id,
 *   iteration, tool, timestamp, data; absent optional fields are omitted.
 */
char *
pd_event_to_json (PdEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  if (pd_event_is_sealed (event))
    return g_strdup (event->json);

  return build_json (event);
}

/**
 * pd_event_to_json_node:
 *
 * Returns: (transfer full): a new, independent JSON tree of the event (for
 *   embedding in a larger document such as `{"events":[…]}`).  It shares
 *   nothing with the event, so it is safe to use from any thread.
 */
JsonNode *
pd_event_to_json_node (PdEvent *event)
{
  g_autofree char *text = pd_event_to_json (event);
  g_autoptr(GError) error = NULL;
  JsonNode *node = pd_json_parse (text, -1, &error);

  /* We wrote the text ourselves; failing to read it back is a bug. */
  if (node == NULL)
    g_critical ("Cannot re-read an event's own JSON: %s", error->message);

  return node;
}

static JsonNode *deep_copy_node (JsonNode *node);

static JsonObject *
deep_copy_object (JsonObject *object)
{
  JsonObject *copy = json_object_new ();
  GList *members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data,
                            deep_copy_node (json_object_get_member (object, l->data)));
  g_list_free (members);

  return copy;
}

/* json_node_copy() shares objects and arrays with the source; an event must
 * own its data outright, since it seals it and may outlive the source. */
static JsonNode *
deep_copy_node (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonNode *copy = json_node_new (JSON_NODE_OBJECT);

        json_node_take_object (copy, deep_copy_object (json_node_get_object (node)));
        return copy;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        JsonArray *copy_array = json_array_sized_new (json_array_get_length (array));
        JsonNode *copy = json_node_new (JSON_NODE_ARRAY);

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (copy_array, deep_copy_node (json_array_get_element (array, i)));
        json_node_take_array (copy, copy_array);
        return copy;
      }

    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

static gboolean
read_optional_string (JsonObject  *object,
                      const char  *key,
                      char       **out,
                      GError     **error)
{
  const char *value;

  if (!pd_json_get_optional_string (object, key, &value))
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                   _("Event field “%s” must be a string"), key);
      return FALSE;
    }

  if (value != NULL)
    *out = dup_field (value);
  return TRUE;
}

static PdEvent *
event_from_object (JsonObject  *object,
                   gboolean     copy_data,
                   GError     **error)
{
  g_autoptr(PdEvent) event = NULL;
  JsonNode *node;
  const char *schema;
  const char *type;
  gint64 timestamp = 0;

  node = json_object_get_member (object, "schema");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_SCHEMA,
                   _("Event has no “schema” string; expected “%s” or “%s”"),
                   PD_EVENT_SCHEMA, PD_EVENT_SCHEMA_ODEK);
      return NULL;
    }

  schema = json_node_get_string (node);
  if (g_strcmp0 (schema, PD_EVENT_SCHEMA) == 0)
    schema = PD_EVENT_SCHEMA;
  else if (g_strcmp0 (schema, PD_EVENT_SCHEMA_ODEK) == 0)
    schema = PD_EVENT_SCHEMA_ODEK;
  else
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_SCHEMA,
                   _("Event schema “%s” is not supported; expected “%s” or “%s”"),
                   schema, PD_EVENT_SCHEMA, PD_EVENT_SCHEMA_ODEK);
      return NULL;
    }

  node = json_object_get_member (object, "type");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING ||
      !type_name_is_valid (json_node_get_string (node)))
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                   _("Event “type” must be a non-empty lower-case name of at most 64 characters"));
      return NULL;
    }
  type = json_node_get_string (node);

  node = json_object_get_member (object, "timestamp");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_TIMESTAMP,
                   _("Event has no “timestamp” string"));
      return NULL;
    }
  if (!pd_event_parse_timestamp (json_node_get_string (node), &timestamp, error))
    return NULL;

  event = pd_event_new (type);
  event->schema = schema;
  event->timestamp = timestamp;

  if (!read_optional_string (object, "run_id", &event->run_id, error) ||
      !read_optional_string (object, "session_id", &event->session_id, error) ||
      !read_optional_string (object, "tool", &event->tool, error))
    return NULL;

  node = json_object_get_member (object, "iteration");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      gint64 iteration;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          (iteration = json_node_get_int (node)) < 0 || iteration > G_MAXUINT)
        {
          g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                       _("Event “iteration” must be a non-negative integer"));
          return NULL;
        }
      event->iteration = (guint) iteration;
    }

  node = json_object_get_member (object, "data");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                       _("Event “data” must be an object"));
          return NULL;
        }
      if (copy_data)
        pd_event_take_data (event, deep_copy_object (json_node_get_object (node)));
      else
        pd_event_take_data (event, json_object_ref (json_node_get_object (node)));
    }

  /* Unknown members (odek's correlation ids such as turn_id or root_run_id)
   * are ignored: newer writers add fields, and readers must not break. */

  return g_steal_pointer (&event);
}

/**
 * pd_event_new_from_json_node:
 *
 * Like pd_event_new_from_json(), for an already parsed tree.  The data is
 * deep-copied, so @node stays the caller's.
 *
 * Returns: (transfer full): an unsealed event, or %NULL with @error set
 */
PdEvent *
pd_event_new_from_json_node (JsonNode  *node,
                             GError   **error)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                   _("An event must be a JSON object"));
      return NULL;
    }

  return event_from_object (json_node_get_object (node), TRUE, error);
}

/**
 * pd_event_new_from_json:
 * @text: one event line (a trailing newline is allowed)
 *
 * Accepts both `plandeck.event/v1` and `odek.event/v1`; the schema read is
 * kept, so a relayed odek event is written back as it came.  The JSON is
 * read strictly (duplicate keys and excessive nesting are refused) since
 * event lines may come from another machine.
 *
 * Returns: (transfer full): an unsealed event, or %NULL with @error set
 */
PdEvent *
pd_event_new_from_json (const char  *text,
                        GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  node = pd_json_parse (text, -1, &local_error);
  if (node == NULL)
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                   _("Event line is not valid JSON: %s"), local_error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_PARSE,
                   _("An event must be a JSON object"));
      return NULL;
    }

  /* The tree is ours and dies here, so its data object can be adopted. */
  return event_from_object (json_node_get_object (node), FALSE, error);
}

/* Plan events ---------------------------------------------------------------- */

/**
 * pd_event_new_plan_change:
 *
 * plan_created `{steps, version}` for a create, otherwise plan_updated
 * `{steps, done, in_progress, blocked, pending, version}`.  No iteration:
 * plan mutations happen inside parallel tool batches (seed 000).  The change
 * carries counts only, so no title or note can reach the event.
 *
 * Returns: (transfer full): an unsealed event
 */
PdEvent *
pd_event_new_plan_change (const char         *run_id,
                          const char         *session_id,
                          const PdPlanChange *change)
{
  JsonObject *data;

  g_return_val_if_fail (change != NULL, NULL);

  data = json_object_new ();
  json_object_set_int_member (data, "steps", change->steps);
  if (!change->created)
    {
      json_object_set_int_member (data, "done", change->done);
      json_object_set_int_member (data, "in_progress", change->in_progress);
      json_object_set_int_member (data, "blocked", change->blocked);
      json_object_set_int_member (data, "pending", change->pending);
    }
  json_object_set_int_member (data, "version", change->version);

  return pd_event_new_full (change->created ? PD_EVENT_PLAN_CREATED : PD_EVENT_PLAN_UPDATED,
                            run_id, session_id, 0, NULL, data);
}

/**
 * pd_event_new_plan_blocked:
 *
 * plan_blocked `{steps, blocked, version}`, for a change whose
 * `blocked_fired` is set (three consecutive transitions to blocked).  The
 * engine emits it after the plan_updated of the same change.
 *
 * Returns: (transfer full): an unsealed event
 */
PdEvent *
pd_event_new_plan_blocked (const char         *run_id,
                           const char         *session_id,
                           const PdPlanChange *change)
{
  JsonObject *data;

  g_return_val_if_fail (change != NULL, NULL);

  data = json_object_new ();
  json_object_set_int_member (data, "steps", change->steps);
  json_object_set_int_member (data, "blocked", change->blocked);
  json_object_set_int_member (data, "version", change->version);

  return pd_event_new_full (PD_EVENT_PLAN_BLOCKED, run_id, session_id, 0, NULL, data);
}

const char *
pd_plan_reassessment_reason_to_string (PdPlanReassessmentReason reason)
{
  switch (reason)
    {
    case PD_PLAN_REASSESSMENT_REPEATED_CHECK_FAILURE:
      return "repeated_check_failure";
    case PD_PLAN_REASSESSMENT_VARIED_TOOL_FAILURES:
      return "varied_tool_failures";
    default:
      return NULL;
    }
}

/**
 * pd_event_new_plan_reassessment:
 *
 * plan_reassessment `{reason, failure_batches: 3}` with the iteration of the
 * batch that triggered it.
 *
 * Returns: (transfer full): an unsealed event
 */
PdEvent *
pd_event_new_plan_reassessment (const char               *run_id,
                                const char               *session_id,
                                guint                     iteration,
                                PdPlanReassessmentReason  reason)
{
  const char *reason_str = pd_plan_reassessment_reason_to_string (reason);
  JsonObject *data;

  g_return_val_if_fail (reason_str != NULL, NULL);

  data = json_object_new ();
  json_object_set_string_member (data, "reason", reason_str);
  json_object_set_int_member (data, "failure_batches", PD_EVENT_REASSESSMENT_FAILURE_BATCHES);

  return pd_event_new_full (PD_EVENT_PLAN_REASSESSMENT, run_id, session_id, iteration, NULL, data);
}

/* The verb comes from model output, so only known verbs are named. */
static const char *
normalize_verb (const char *verb)
{
  static const char * const verbs[] = {
    "create", "update", "complete", "get", "revise", "check_replace", NULL,
  };

  for (guint i = 0; verbs[i] != NULL; i++)
    if (g_strcmp0 (verb, verbs[i]) == 0)
      return verbs[i];

  return "unknown";
}

static const char *
error_class (const GError *error)
{
  if (error == NULL || error->domain != PD_PLAN_ERROR)
    return "internal";

  switch ((PdPlanError) error->code)
    {
    case PD_PLAN_ERROR_INVALID_ARGS:   return "invalid_args";
    case PD_PLAN_ERROR_CHECKS_PENDING: return "checks_pending";
    case PD_PLAN_ERROR_TOO_LARGE:      return "too_large";
    case PD_PLAN_ERROR_PARSE:          return "parse";
    case PD_PLAN_ERROR_DISABLED:       return "disabled";
    default:                           return "internal";
    }
}

/**
 * pd_event_new_plan_validation_failed:
 * @verb: (nullable): the verb the rejected call named
 * @error: (nullable): the rejection
 *
 * plan_validation_failed `{verb, error_class}`, once per rejected plan call.
 * odek's key set is not documented; ours names only a known verb (else
 * "unknown") and a class derived from the error code — never the message,
 * which quotes the call's arguments.
 *
 * Returns: (transfer full): an unsealed event
 */
PdEvent *
pd_event_new_plan_validation_failed (const char   *run_id,
                                     const char   *session_id,
                                     const char   *verb,
                                     const GError *error)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "verb", normalize_verb (verb));
  json_object_set_string_member (data, "error_class", error_class (error));

  return pd_event_new_full (PD_EVENT_PLAN_VALIDATION_FAILED, run_id, session_id, 0, NULL, data);
}
