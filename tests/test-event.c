/* test-event.c: the odek.event/v1 envelope as we write and read it, and the
 * plan events' minimal payloads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-plan.h"

/* 2026-08-07T12:00:00Z */
#define T0 G_GINT64_CONSTANT (1786104000)

static void
test_envelope_order (void)
{
  g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_TOOL_CALL_COMPLETED);
  JsonObject *data = pd_event_get_data (event);
  g_autofree char *json = NULL;

  /* Set out of envelope order, to show the writer imposes the order. */
  pd_event_set_tool (event, "read_file");
  pd_event_set_iteration (event, 3);
  pd_event_set_session_id (event, "20260807-0123456789abcdef0123456789abcdef");
  pd_event_set_run_id (event, "5f0c6d1e2a3b4c5d6e7f8091a2b3c4d5");
  pd_event_set_timestamp (event, T0 * G_USEC_PER_SEC + 123456);
  json_object_set_int_member (data, "duration_ms", 412);
  json_object_set_int_member (data, "result_bytes", 812);
  json_object_set_int_member (data, "artifact_count", 1);

  json = pd_event_to_json (event);
  g_assert_cmpstr (json, ==,
                   "{\"schema\":\"plandeck.event/v1\",\"type\":\"tool_call_completed\","
                   "\"run_id\":\"5f0c6d1e2a3b4c5d6e7f8091a2b3c4d5\","
                   "\"session_id\":\"20260807-0123456789abcdef0123456789abcdef\","
                   "\"iteration\":3,\"tool\":\"read_file\","
                   "\"timestamp\":\"2026-08-07T12:00:00.123456Z\","
                   "\"data\":{\"duration_ms\":412,\"result_bytes\":812,\"artifact_count\":1}}");
  g_assert_null (strchr (json, '\n'));
}

static void
test_envelope_omit_empty (void)
{
  g_autoptr(PdEvent) event = pd_event_new_full (PD_EVENT_RUN_STARTED, "", NULL, 0, "", NULL);
  g_autofree char *json = NULL;

  pd_event_set_timestamp (event, T0 * G_USEC_PER_SEC);
  json = pd_event_to_json (event);
  g_assert_cmpstr (json, ==,
                   "{\"schema\":\"plandeck.event/v1\",\"type\":\"run_started\","
                   "\"timestamp\":\"2026-08-07T12:00:00.000000Z\"}");
  g_assert_null (pd_event_get_run_id (event));
  g_assert_null (pd_event_get_tool (event));
}

static void
test_envelope_escaping (void)
{
  g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_TOOL_CALL_FAILED);
  g_autoptr(PdEvent) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;

  pd_event_set_tool (event, "we\"ird\n<tool>");
  json_object_set_string_member (pd_event_get_data (event), "error_class", "a\tb");
  json = pd_event_to_json (event);
  /* One line whatever the strings hold, and HTML-safe like Go's encoder. */
  g_assert_null (strchr (json, '\n'));
  g_assert_null (strchr (json, '<'));

  back = pd_event_new_from_json (json, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_event_get_tool (back), ==, "we\"ird\n<tool>");
  g_assert_cmpstr (json_object_get_string_member (pd_event_get_data (back), "error_class"), ==, "a\tb");
}

static void
test_timestamp_format (void)
{
  struct { gint64 usec; const char *text; } cases[] = {
    { T0 * G_USEC_PER_SEC + 123456, "2026-08-07T12:00:00.123456Z" },
    { T0 * G_USEC_PER_SEC + 5, "2026-08-07T12:00:00.000005Z" },
    { 0, "1970-01-01T00:00:00.000000Z" },
    { -1, "1969-12-31T23:59:59.999999Z" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = pd_event_format_timestamp (cases[i].usec);
      gint64 back = 0;

      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_true (pd_event_parse_timestamp (text, &back, NULL));
      g_assert_cmpint (back, ==, cases[i].usec);
    }
}

static void
test_timestamp_parse (void)
{
  const gint64 base = T0 * G_USEC_PER_SEC;
  struct { const char *text; gint64 usec; } good[] = {
    { "2026-08-07T12:00:00Z", base },
    { "2026-08-07T12:00:00.5Z", base + 500000 },
    { "2026-08-07T12:00:00.123456789Z", base + 123456 },  /* Go RFC3339Nano */
    { "2026-08-07T14:00:00+02:00", base },
    { "2026-08-07T06:30:00.25-05:30", base + 250000 },
    { "2026-08-07t12:00:00z", base },
  };
  const char *bad[] = {
    "",
    "2026-08-07T12:00:00",          /* no offset */
    "2026-08-07 12:00:00Z",         /* space instead of T */
    "2026-02-30T12:00:00Z",         /* no such day */
    "2026-08-07T24:00:00Z",
    "2026-08-07T12:00:60Z",         /* leap second: not representable */
    "2026-08-07T12:00:00.Z",
    "2026-08-07T12:00:00Zjunk",
    "2026-08-07T12:00:00+2:00",
    "2026-W32-5T12:00:00Z",         /* ISO 8601 week date, not RFC 3339 */
    "1786104000",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 usec = 0;

      g_assert_true (pd_event_parse_timestamp (good[i].text, &usec, &error));
      g_assert_no_error (error);
      g_assert_cmpint (usec, ==, good[i].usec);
    }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (pd_event_parse_timestamp (bad[i], NULL, &error));
      g_assert_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_TIMESTAMP);
    }
}

static void
test_parse_odek (void)
{
  /* The example line of odek's EXTENSIONS.md (reference §4). */
  const char *line =
    "{\"schema\":\"odek.event/v1\",\"type\":\"tool_call_completed\",\"run_id\":\"r1\","
    "\"session_id\":\"s1\",\"iteration\":3,\"tool\":\"shell\","
    "\"timestamp\":\"2026-08-07T12:00:00Z\","
    "\"data\":{\"duration_ms\":412,\"result_bytes\":812,\"artifact_count\":1}}\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = pd_event_new_from_json (line, &error);
  g_autofree char *json = NULL;
  JsonObject *data;

  g_assert_no_error (error);
  g_assert_nonnull (event);
  g_assert_cmpstr (pd_event_get_schema (event), ==, PD_EVENT_SCHEMA_ODEK);
  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_TOOL_CALL_COMPLETED);
  g_assert_cmpstr (pd_event_get_run_id (event), ==, "r1");
  g_assert_cmpstr (pd_event_get_session_id (event), ==, "s1");
  g_assert_cmpuint (pd_event_get_iteration (event), ==, 3);
  g_assert_cmpstr (pd_event_get_tool (event), ==, "shell");
  g_assert_cmpint (pd_event_get_timestamp (event), ==, T0 * G_USEC_PER_SEC);
  data = pd_event_get_data (event);
  g_assert_cmpint (json_object_get_int_member (data, "duration_ms"), ==, 412);
  g_assert_cmpint (json_object_get_int_member (data, "artifact_count"), ==, 1);

  /* A relayed odek event keeps its schema name. */
  json = pd_event_to_json (event);
  g_assert_true (g_str_has_prefix (json, "{\"schema\":\"odek.event/v1\",\"type\":\"tool_call_completed\","));
}

static void
test_parse_round_trip (void)
{
  g_autoptr(PdEvent) event = pd_event_new_full (PD_EVENT_RUN_COMPLETED, "r9", "s9", 0, NULL, NULL);
  g_autoptr(PdEvent) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *again = NULL;
  JsonObject *data = pd_event_get_data (event);
  g_autoptr(JsonArray) list = json_array_new ();

  json_object_set_int_member (data, "duration_ms", 1200);
  json_object_set_int_member (data, "input_tokens", 5000);
  json_object_set_int_member (data, "output_tokens", 700);
  json_object_set_double_member (data, "ratio", 0.25);
  json_object_set_boolean_member (data, "cached", TRUE);
  json_object_set_null_member (data, "note");
  json_array_add_string_element (list, "x");
  json_object_set_array_member (data, "list", g_steal_pointer (&list));
  pd_event_seal (event);

  json = pd_event_to_json (event);
  back = pd_event_new_from_json (json, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_event_get_schema (back), ==, PD_EVENT_SCHEMA);
  again = pd_event_to_json (back);
  g_assert_cmpstr (again, ==, json);

  /* The tree form (for `{"events":[…]}` documents) says the same. */
  {
    g_autoptr(JsonNode) node = pd_event_to_json_node (event);
    g_autofree char *from_node = pd_json_to_string (node, FALSE);

    g_assert_cmpstr (from_node, ==, json);
  }
}

static void
test_parse_node_copies (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = NULL;
  JsonObject *source_data;

  json_parser_load_from_data (parser,
                              "{\"schema\":\"plandeck.event/v1\",\"type\":\"session_saved\","
                              "\"timestamp\":\"2026-08-07T12:00:00Z\",\"data\":{\"messages\":4}}",
                              -1, &error);
  g_assert_no_error (error);
  event = pd_event_new_from_json_node (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  pd_event_seal (event);

  /* The caller's tree stays the caller's: still writable after sealing. */
  source_data = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "data");
  g_assert_false (json_object_is_immutable (source_data));
  json_object_set_int_member (source_data, "messages", 5);
  g_assert_cmpint (json_object_get_int_member (pd_event_get_data (event), "messages"), ==, 4);
}

static void
test_parse_reject (void)
{
  struct { const char *text; gint code; } cases[] = {
    { "{\"schema\":\"odek.event/v2\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_SCHEMA },
    { "{\"schema\":\"plandeck.event/v10\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_SCHEMA },
    { "{\"schema\":\"PLANDECK.EVENT/V1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_SCHEMA },
    { "{\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_SCHEMA },
    { "{\"schema\":1,\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_SCHEMA },
    { "{\"schema\":\"odek.event/v1\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"Run Started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\"}", PD_EVENT_ERROR_TIMESTAMP },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"yesterday\"}", PD_EVENT_ERROR_TIMESTAMP },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":1786104000}", PD_EVENT_ERROR_TIMESTAMP },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\",\"iteration\":-1}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\",\"iteration\":\"3\"}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\",\"iteration\":1.5}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\",\"run_id\":7}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\",\"data\":[1]}", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"type\":\"run_failed\",\"timestamp\":\"2026-08-07T12:00:00Z\"}", PD_EVENT_ERROR_PARSE },
    { "[{\"schema\":\"odek.event/v1\"}]", PD_EVENT_ERROR_PARSE },
    { "{\"schema\":\"odek.event/v1\"", PD_EVENT_ERROR_PARSE },
    { "", PD_EVENT_ERROR_PARSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PdEvent) event = pd_event_new_from_json (cases[i].text, &error);

      g_test_message ("case %u: %s", i, cases[i].text);
      g_assert_null (event);
      g_assert_error (error, PD_EVENT_ERROR, cases[i].code);
    }
}

static void
test_parse_unknown_fields (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = NULL;
  g_autofree char *json = NULL;

  /* odek puts correlation ids before schema; newer writers may add more. */
  event = pd_event_new_from_json ("{\"turn_id\":\"t1\",\"root_run_id\":\"r0\","
                                  "\"schema\":\"odek.event/v1\",\"type\":\"subagent_denied\","
                                  "\"timestamp\":\"2026-08-07T12:00:00Z\",\"iteration\":0,"
                                  "\"tool\":null}", &error);
  g_assert_no_error (error);
  g_assert_false (pd_event_type_is_known (pd_event_get_event_type (event)));
  json = pd_event_to_json (event);
  g_assert_cmpstr (json, ==,
                   "{\"schema\":\"odek.event/v1\",\"type\":\"subagent_denied\","
                   "\"timestamp\":\"2026-08-07T12:00:00.000000Z\"}");
}

static void
test_known_types (void)
{
  const char *types[] = {
    "run_started", "iteration_completed", "tool_call_started", "tool_call_completed",
    "tool_call_failed", "session_saved", "context_trimmed", "budget_exceeded",
    "run_completed", "run_failed", "plan_created", "plan_updated", "plan_blocked",
    "plan_reassessment", "plan_validation_failed", "subagent_spawned",
    "subagent_completed", "side_call_usage", "plan_mode", "plan_artifact_saved",
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    g_assert_true (pd_event_type_is_known (types[i]));
  g_assert_false (pd_event_type_is_known ("plan_deleted"));
  g_assert_true (pd_event_type_is_plan (PD_EVENT_PLAN_BLOCKED));
  g_assert_false (pd_event_type_is_plan (PD_EVENT_RUN_STARTED));
}

/* Changing a sealed event is a programming error: it logs a critical, which
 * the test environment makes fatal, so it is checked in a subprocess. */
static void
test_sealed_setter (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_CONTEXT_TRIMMED);

      pd_event_seal (event);
      pd_event_set_tool (event, "changed");
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*is sealed (already emitted) and cannot change*");
}

static void
test_sealed (void)
{
  g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_CONTEXT_TRIMMED);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  PdEvent *copy;

  json_object_set_int_member (pd_event_get_data (event), "dropped_messages", 4);
  before = pd_event_to_json (event);
  pd_event_seal (event);
  pd_event_seal (event);
  g_assert_true (pd_event_is_sealed (event));
  g_assert_true (json_object_is_immutable (pd_event_get_data (event)));

  after = pd_event_to_json (event);
  g_assert_cmpstr (before, ==, after);

  /* The boxed type shares, it does not copy. */
  copy = g_boxed_copy (PD_TYPE_EVENT, event);
  g_assert_true (copy == event);
  g_boxed_free (PD_TYPE_EVENT, copy);
}

/* Plan events ----------------------------------------------------------------- */

static char *
data_keys (PdEvent *event)
{
  GList *members = json_object_get_members (pd_event_get_data (event));
  GString *out = g_string_new (NULL);

  for (GList *l = members; l; l = l->next)
    {
      if (out->len > 0)
        g_string_append_c (out, ',');
      g_string_append (out, l->data);
    }
  g_list_free (members);

  return g_string_free (out, FALSE);
}

static void
test_plan_created (void)
{
  PdPlanChange change = { .created = TRUE, .steps = 3, .pending = 3, .version = 1 };
  g_autoptr(PdEvent) event = pd_event_new_plan_change ("r1", "s1", &change);
  g_autofree char *keys = data_keys (event);
  g_autofree char *json = NULL;

  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_PLAN_CREATED);
  g_assert_cmpstr (keys, ==, "steps,version");
  g_assert_cmpuint (pd_event_get_iteration (event), ==, 0);
  pd_event_set_timestamp (event, T0 * G_USEC_PER_SEC);
  json = pd_event_to_json (event);
  g_assert_cmpstr (json, ==,
                   "{\"schema\":\"plandeck.event/v1\",\"type\":\"plan_created\",\"run_id\":\"r1\","
                   "\"session_id\":\"s1\",\"timestamp\":\"2026-08-07T12:00:00.000000Z\","
                   "\"data\":{\"steps\":3,\"version\":1}}");
}

static void
test_plan_updated (void)
{
  PdPlanChange change = {
    .steps = 5, .done = 1, .in_progress = 1, .blocked = 1, .pending = 2, .version = 7,
  };
  g_autoptr(PdEvent) event = pd_event_new_plan_change (NULL, NULL, &change);
  g_autofree char *keys = data_keys (event);
  JsonObject *data = pd_event_get_data (event);

  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_PLAN_UPDATED);
  g_assert_cmpstr (keys, ==, "steps,done,in_progress,blocked,pending,version");
  g_assert_cmpint (json_object_get_int_member (data, "steps"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (data, "done"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (data, "in_progress"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (data, "blocked"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (data, "pending"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (data, "version"), ==, 7);
  g_assert_cmpuint (pd_event_get_iteration (event), ==, 0);
}

static void
test_plan_blocked (void)
{
  PdPlanChange change = {
    .steps = 4, .blocked = 3, .pending = 1, .version = 4, .blocked_streak = 3, .blocked_fired = TRUE,
  };
  g_autoptr(PdEvent) event = pd_event_new_plan_blocked ("r1", "s1", &change);
  g_autofree char *keys = data_keys (event);

  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_PLAN_BLOCKED);
  g_assert_cmpstr (keys, ==, "steps,blocked,version");
  g_assert_cmpint (json_object_get_int_member (pd_event_get_data (event), "blocked"), ==, 3);
}

static void
test_plan_reassessment (void)
{
  g_autoptr(PdEvent) event =
    pd_event_new_plan_reassessment ("r1", "s1", 6, PD_PLAN_REASSESSMENT_VARIED_TOOL_FAILURES);
  g_autoptr(PdEvent) other =
    pd_event_new_plan_reassessment ("r1", "s1", 2, PD_PLAN_REASSESSMENT_REPEATED_CHECK_FAILURE);
  g_autofree char *keys = data_keys (event);
  JsonObject *data = pd_event_get_data (event);

  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_PLAN_REASSESSMENT);
  g_assert_cmpstr (keys, ==, "reason,failure_batches");
  g_assert_cmpstr (json_object_get_string_member (data, "reason"), ==, "varied_tool_failures");
  g_assert_cmpint (json_object_get_int_member (data, "failure_batches"), ==, 3);
  g_assert_cmpuint (pd_event_get_iteration (event), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (pd_event_get_data (other), "reason"), ==,
                   "repeated_check_failure");
}

static void
test_plan_validation_failed (void)
{
  g_autoptr(GError) error = g_error_new (PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                                         "plan: step title “TOP-SECRET” is too long");
  g_autoptr(PdEvent) event =
    pd_event_new_plan_validation_failed ("r1", "s1", "create", error);
  g_autoptr(PdEvent) odd =
    pd_event_new_plan_validation_failed ("r1", "s1", "TOP-SECRET verb", NULL);
  g_autofree char *keys = data_keys (event);
  g_autofree char *json = pd_event_to_json (event);
  g_autofree char *odd_json = pd_event_to_json (odd);

  g_assert_cmpstr (keys, ==, "verb,error_class");
  g_assert_cmpstr (json_object_get_string_member (pd_event_get_data (event), "verb"), ==, "create");
  g_assert_cmpstr (json_object_get_string_member (pd_event_get_data (event), "error_class"), ==, "invalid_args");
  g_assert_cmpstr (json_object_get_string_member (pd_event_get_data (odd), "verb"), ==, "unknown");
  g_assert_null (strstr (json, "TOP-SECRET"));
  g_assert_null (strstr (odd_json, "TOP-SECRET"));
}

typedef struct
{
  GPtrArray *lines;
  guint      blocked_events;
} Collect;

static void
collect_change (const PdPlanChange *change,
                gpointer            user_data)
{
  Collect *collect = user_data;
  g_autoptr(PdEvent) event = pd_event_new_plan_change ("r1", "s1", change);

  g_ptr_array_add (collect->lines, pd_event_to_json (event));
  if (change->blocked_fired)
    {
      g_autoptr(PdEvent) blocked = pd_event_new_plan_blocked ("r1", "s1", change);

      g_ptr_array_add (collect->lines, pd_event_to_json (blocked));
      collect->blocked_events++;
    }
}

static void
exec_ok (PdPlanStore *store,
         const char  *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (store, json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
}

/* End to end through a real plan store: whatever the titles and notes say,
 * the events built from its changes carry counts and the version only. */
static void
test_plan_no_text_leak (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 4000);
  Collect collect = { g_ptr_array_new_with_free_func (g_free), 0 };

  pd_plan_store_set_change_func (store, collect_change, &collect, NULL);

  exec_ok (store, "{\"verb\":\"create\",\"steps\":["
                  "{\"id\":\"s1\",\"title\":\"SECRET-TITLE-1 deploy\"},"
                  "{\"id\":\"s2\",\"title\":\"SECRET-TITLE-2\"},"
                  "{\"id\":\"s3\",\"title\":\"SECRET-TITLE-3\"},"
                  "{\"id\":\"s4\",\"title\":\"SECRET-TITLE-4\"}]}");
  exec_ok (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"blocked\",\"note\":\"SECRET-NOTE-1\"}]}");
  exec_ok (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s2\",\"status\":\"blocked\",\"note\":\"SECRET-NOTE-2\"}]}");
  exec_ok (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s3\",\"status\":\"blocked\",\"note\":\"SECRET-NOTE-3\"}]}");
  /* A note-only update still bumps the version and emits plan_updated. */
  exec_ok (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s4\",\"note\":\"SECRET-NOTE-4\"}]}");

  g_assert_cmpuint (collect.blocked_events, ==, 1);
  g_assert_cmpuint (collect.lines->len, ==, 6);
  g_assert_true (strstr (g_ptr_array_index (collect.lines, 0), "\"type\":\"plan_created\""));
  g_assert_true (strstr (g_ptr_array_index (collect.lines, 0), "\"data\":{\"steps\":4,\"version\":1}"));
  g_assert_true (strstr (g_ptr_array_index (collect.lines, 4), "\"type\":\"plan_blocked\""));
  g_assert_true (strstr (g_ptr_array_index (collect.lines, 4), "\"data\":{\"steps\":4,\"blocked\":3,\"version\":4}"));
  g_assert_true (strstr (g_ptr_array_index (collect.lines, 5),
                         "\"data\":{\"steps\":4,\"done\":0,\"in_progress\":0,\"blocked\":3,\"pending\":1,\"version\":5}"));

  for (guint i = 0; i < collect.lines->len; i++)
    {
      const char *line = g_ptr_array_index (collect.lines, i);

      g_test_message ("%s", line);
      g_assert_null (strstr (line, "SECRET"));
      g_assert_null (strstr (line, "deploy"));
      g_assert_null (strstr (line, "\"iteration\""));
    }

  g_ptr_array_unref (collect.lines);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/events/envelope/order", test_envelope_order);
  g_test_add_func ("/pd/events/envelope/omit-empty", test_envelope_omit_empty);
  g_test_add_func ("/pd/events/envelope/escaping", test_envelope_escaping);
  g_test_add_func ("/pd/events/envelope/sealed", test_sealed);
  g_test_add_func ("/pd/events/envelope/sealed-setter", test_sealed_setter);
  g_test_add_func ("/pd/events/timestamp/format", test_timestamp_format);
  g_test_add_func ("/pd/events/timestamp/parse", test_timestamp_parse);
  g_test_add_func ("/pd/events/parse/odek", test_parse_odek);
  g_test_add_func ("/pd/events/parse/round-trip", test_parse_round_trip);
  g_test_add_func ("/pd/events/parse/node-copies", test_parse_node_copies);
  g_test_add_func ("/pd/events/parse/reject", test_parse_reject);
  g_test_add_func ("/pd/events/parse/unknown-fields", test_parse_unknown_fields);
  g_test_add_func ("/pd/events/types/known", test_known_types);
  g_test_add_func ("/pd/events/plan/created", test_plan_created);
  g_test_add_func ("/pd/events/plan/updated", test_plan_updated);
  g_test_add_func ("/pd/events/plan/blocked", test_plan_blocked);
  g_test_add_func ("/pd/events/plan/reassessment", test_plan_reassessment);
  g_test_add_func ("/pd/events/plan/validation-failed", test_plan_validation_failed);
  g_test_add_func ("/pd/events/plan/no-text-leak", test_plan_no_text_leak);

  return g_test_run ();
}
