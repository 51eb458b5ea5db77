/* test-random.c: the one generator of ids, tokens and nonces.
 *
 * Besides the generator's own contract, each place that mints a secret is
 * tried as an attacker would: GLib's g_random is a Mersenne Twister whose
 * seed an attacker can learn or set (G_RANDOM_VERSION, a fork), so after
 * g_random_set_seed() the minted value must not be what g_random gives.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-random"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-import-index.h"
#include "pd-import-test.h"
#include "pd-plan.h"
#include "pd-random-private.h"
#include "pd-server.h"
#include "pd-session-store.h"

#define SEED 20261201

static gboolean
is_lower_hex (const char *text)
{
  for (const char *p = text; *p; p++)
    if (!g_ascii_isdigit (*p) && !(*p >= 'a' && *p <= 'f'))
      return FALSE;
  return TRUE;
}

/* What a g_random-based hex generator would give after g_random_set_seed (SEED). */
static char *
g_random_hex_after_seed (guint n_bytes)
{
  GString *out = g_string_new (NULL);

  g_random_set_seed (SEED);
  for (guint i = 0; i < n_bytes; i++)
    g_string_append_printf (out, "%02x", (guint) g_random_int_range (0, 256));
  return g_string_free (out, FALSE);
}

static void
test_hex (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *empty = pd_random_hex (0);

  g_assert_cmpstr (empty, ==, "");
  for (guint n = 1; n <= 64; n++)
    {
      char *hex = pd_random_hex (n);

      g_assert_cmpuint (strlen (hex), ==, 2 * n);
      g_assert_true (is_lower_hex (hex));
      /* 8 bits and more: a repeat among 64 values would be a broken source
       * (for n = 1 a repeat is likely, so only from 8 bytes on). */
      if (n >= 8)
        g_assert_false (g_hash_table_contains (seen, hex));
      g_hash_table_add (seen, hex);
    }
}

/* Large requests: getrandom() returns at most 32 MiB - 1 per call and may be
 * cut short; every byte of the buffer is filled. */
static void
test_bytes_filled (void)
{
  const gsize length = 33 * 1024 * 1024;
  g_autofree guint8 *buffer = g_malloc0 (length);
  guint counts[256] = { 0 };
  gsize tail_zero = 0;

  pd_random_bytes (buffer, length);
  for (gsize i = 0; i < length; i++)
    counts[buffer[i]]++;
  /* Each byte value near length/256 (135 168): a quarter off is impossible
   * for a real source, and certain for a buffer left partly unfilled. */
  for (guint v = 0; v < 256; v++)
    {
      g_assert_cmpuint (counts[v], >, length / 256 * 3 / 4);
      g_assert_cmpuint (counts[v], <, length / 256 * 5 / 4);
    }
  /* And the end of the buffer is written too (a short read left zeros). */
  for (gsize i = length - 4096; i < length; i++)
    tail_zero += buffer[i] == 0;
  g_assert_cmpuint (tail_zero, <, 64);
}

static void
test_urandom_fallback (void)
{
  guint8 buffer[4096] = { 0 };
  g_autoptr(GError) error = NULL;
  gsize zeros = 0;

  g_assert_true (_pd_random_read_urandom ("/dev/urandom", buffer, sizeof buffer, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < sizeof buffer; i++)
    zeros += buffer[i] == 0;
  g_assert_cmpuint (zeros, <, 64);

  /* A missing device is an error with its path, not random-looking zeros. */
  g_assert_false (_pd_random_read_urandom ("/nonexistent/urandom", buffer, 16, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/urandom"));
  g_clear_error (&error);

  /* A file that ends early is refused rather than half used. */
  g_assert_false (_pd_random_read_urandom ("/dev/null", buffer, 16, &error));
  g_assert_nonnull (error);
}

/* The serve instance token (and the run ids from the same generator). */
static void
test_server_token_not_g_random (void)
{
  g_autofree char *predicted = NULL;
  g_autoptr(PdServer) server = NULL;
  const char *token;

  g_random_set_seed (SEED);
  server = pd_server_new ("/nonexistent/never-opened.db");
  token = pd_server_get_token (server);
  predicted = g_random_hex_after_seed (32);

  g_assert_cmpuint (strlen (token), ==, 64);
  g_assert_true (is_lower_hex (token));
  g_assert_cmpstr (token, !=, predicted);
}

static void
test_nonce_and_session_id_not_g_random (void)
{
  g_autofree char *nonce = NULL;
  g_autofree char *id = NULL;
  g_autofree char *predicted_nonce = NULL;
  g_autofree char *predicted_id = NULL;

  g_random_set_seed (SEED);
  nonce = pd_plan_new_nonce ();
  predicted_nonce = g_random_hex_after_seed (16);
  g_random_set_seed (SEED);
  id = pd_session_id_new ();
  predicted_id = g_random_hex_after_seed (16);

  g_assert_cmpuint (strlen (nonce), ==, 32);
  g_assert_cmpstr (nonce, !=, predicted_nonce);
  g_assert_true (pd_session_id_is_valid (id));
  g_assert_cmpstr (strchr (id, '-') + 1, !=, predicted_id);
}

/* An imported transcript's session gets a token of its own: 32 random bytes
 * (as Plandeck's own sessions), not a GLib UUID (which is g_random). */
static void
test_imported_token_not_g_random (void)
{
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
    "\"message\":{\"role\":\"user\",\"content\":\"Tidy the build\"}}",
    NULL
  };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "sessions.db", NULL);
  g_autofree char *path = pd_import_test_write (dir, "s1.jsonl", lines);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autofree char *uuid = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *predicted = NULL;
  const char *paths[] = { path, NULL };

  g_assert_no_error (error);
  store = pd_session_store_new (db);

  g_random_set_seed (SEED);
  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  g_random_set_seed (SEED);
  uuid = g_uuid_string_random ();
  parts = g_strsplit (uuid, "-", -1);
  predicted = g_strjoinv ("", parts);

  list = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  info = pd_session_store_get (store, ((PdSessionInfo *) g_ptr_array_index (list, 0))->id, &error);
  g_assert_no_error (error);
  g_assert_false (g_str_has_prefix (info->auth_token, predicted));
  g_assert_cmpuint (strlen (info->auth_token), ==, 64);
  g_assert_true (is_lower_hex (info->auth_token));

  g_clear_object (&store);
  g_clear_object (&db);
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/random/hex", test_hex);
  g_test_add_func ("/pd/random/bytes-filled", test_bytes_filled);
  g_test_add_func ("/pd/random/urandom-fallback", test_urandom_fallback);
  g_test_add_func ("/pd/random/server-token-not-g-random", test_server_token_not_g_random);
  g_test_add_func ("/pd/random/nonce-and-session-id-not-g-random", test_nonce_and_session_id_not_g_random);
  g_test_add_func ("/pd/random/imported-token-not-g-random", test_imported_token_not_g_random);

  return g_test_run ();
}
