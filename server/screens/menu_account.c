/* menu_account — logging in, registering and changing the password: the
 * prompts they ask in turn and the account request that ends them
 * (accounts.h, on the thread pool; the conn waits meanwhile). */
#include <string.h>
#include "accounts.h"
#include "hooks.h"
#include "inbox.h"
#include "log.h"
#include "logcap.h"
#include "menu_impl.h"
#include "session.h"

static void name_done(conn_t *c);
static void new_password_done(conn_t *c);
static void old_password_done(conn_t *c);
static void confirm_done(conn_t *c);
static void account_submit(conn_t *c);

/* What each asks, in the order the three ways go through them. */
static const menu_prompt_t prompt_login_name = {"Log in", "Name: ", "Esc cancels.", false,
                                                name_done};
static const menu_prompt_t prompt_login_pass = {"Log in", "Password: ", "Esc cancels.", true,
                                                account_submit};
static const menu_prompt_t prompt_reg_name = {
    "Register", "Name: ", "2-20 letters, digits, _ or -. Esc cancels.", false, name_done};
static const menu_prompt_t prompt_reg_pass = {
    "Register", "Password: ", "8-128 characters. Esc cancels.", true, new_password_done};
static const menu_prompt_t prompt_reg_pass2 = {"Register", "Password again: ", "Esc cancels.", true,
                                               confirm_done};
static const menu_prompt_t prompt_chpw_old = {"Change password", "Old password: ", "Esc cancels.",
                                              true, old_password_done};
static const menu_prompt_t prompt_chpw_new = {
    "Change password", "New password: ", "8-128 characters. Esc cancels.", true, new_password_done};
static const menu_prompt_t prompt_chpw_new2 = {
    "Change password", "New password again: ", "Esc cancels.", true, confirm_done};

void menu_open_login(conn_t *c)
{
    menu_prompt_open(c, &prompt_login_name);
}

void menu_open_register(conn_t *c)
{
    menu_prompt_open(c, &prompt_reg_name);
}

void menu_open_password(conn_t *c)
{
    menu_prompt_open(c, &prompt_chpw_old);
}

/* Registration's name lookup came back: a taken name is asked again. Keys
 * typed during the lookup are played at the password prompt if the name is
 * free, dropped otherwise (they were typed for a prompt not reached). */
static void on_reg_name(void *ud, int status, const db_user_t *u)
{
    conn_t *c = ud;
    (void)u;
    if (!c->closing && c->place == CONN_WAIT) {
        key_event_t keys[CONN_HELD_KEYS];
        int n = conn_take_held(c, keys);
        menu_show(c, MENU_PROMPT);
        if (status == DB_OK) {
            menu_prompt_again(c, "That name is taken.");
        } else if (status == DB_ENOTFOUND) {
            menu_prompt_next(c, &prompt_reg_pass);
            conn_play_keys(c, keys, n);
        } else {
            conn_menu(c, "The account service is not available.");
        }
    }
    conn_unref(c);
}

static void name_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    char why[160];
    if (m->line_len == 0) {
        conn_menu(c, NULL);
        return;
    }
    if (m->prompt == &prompt_reg_name && accounts_check_name(m->line, why, sizeof why)) {
        menu_prompt_again(c, why);
        return;
    }
    snprintf(m->pend_name, sizeof m->pend_name, "%.31s", m->line);
    if (m->prompt == &prompt_reg_name) { /* a taken name is refused before any password */
        char key[DB_NAME_MAX];
        accounts_name_key(m->pend_name, key);
        conn_wait_for(c, "the name check");
        conn_ref(c);
        db_user_by_name(c->srv->db, key, on_reg_name, c);
        menu_redraw(c);
        return;
    }
    menu_prompt_next(c, &prompt_login_pass);
}

static void new_password_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    char why[160];
    if (accounts_check_password(m->line, m->line_len, why, sizeof why)) {
        menu_wipe_secrets(m);
        menu_prompt_again(c, why);
        return;
    }
    memcpy(m->pend_pass, m->line, m->line_len + 1);
    menu_prompt_next(c, m->prompt == &prompt_reg_pass ? &prompt_reg_pass2 : &prompt_chpw_new2);
}

static void old_password_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    memcpy(m->pend_old, m->line, m->line_len + 1);
    menu_prompt_next(c, &prompt_chpw_new);
}

static void confirm_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (strcmp(m->line, m->pend_pass) != 0) {
        menu_wipe_secrets(m);
        conn_menu(c, "The passwords did not match.");
        return;
    }
    account_submit(c);
}

/* Logins under the log's cap (logcap.h): a player's a few times per
 * address in a window (a new address always said), a failure once per
 * address, a locked account's apart so that a flood of wrong passwords
 * cannot hold it back. */
static const logcap_kind_t SAY_LOGIN = {"login", 5, 1000}, SAY_FAILED = {"login failed"},
                           SAY_LOCKED = {"login to a locked account", 1, 1000};

static void on_account(void *ud, int status, const db_user_t *u, const char *msg)
{
    conn_t *c = ud;
    const menu_prompt_t *p = c->menu->prompt; /* which request this answers */
    if (c->closing || c->place != CONN_WAIT) {
        conn_unref(c);
        return;
    }
    key_event_t keys[CONN_HELD_KEYS]; /* typed ahead while the check ran */
    int n = conn_take_held(c, keys);
    if (status == ACCOUNTS_OK && u && p != &prompt_chpw_new2) {
        conn_set_user(c, u->id, u->name, u->game_name);
        menu_options_apply(c, u->options);
        logcap_say_user(c->srv->strangers, now_ms(c->srv), LOG_INFO, &SAY_LOGIN, c->key, c->user,
                        "login conn=%llu ip=%s user=%s%s", (unsigned long long)c->id, c->ip,
                        c->user, p == &prompt_reg_pass2 ? " (registered)" : "");
        bool live = session_user_live(c->srv, c->user_id);
        char made[96]; /* registering says it worked */
        snprintf(made, sizeof made, "Welcome, %s: your account is made. Press p to play.", c->user);
        conn_menu(c, live                     ? "Your game is waiting: press p to continue it."
                     : p == &prompt_reg_pass2 ? made
                                              : "");
        conn_play_keys(c, keys, n); /* before any notice: one shown later waits for a key */
        if (!live && !c->closing)
            session_login_notice(c);
        /* unseen mail, if any, over the menu; if the keys went on (into a
         * game), once the player is back at the menu */
        c->menu->mail_due = !c->closing && !menu_at_main(c);
        if (!c->closing && menu_at_main(c))
            inbox_show(c);
    } else if (status == ACCOUNTS_OK) {
        log_info("password changed user=%s", c->user);
        /* its browsers log in again */
        HOOKS_CALL(c->srv->hooks->password_changed, c->srv, c->user_id, NULL);
        conn_menu(c, "Password changed.");
        conn_play_keys(c, keys, n);
    } else {
        logcap_say(c->srv->strangers, now_ms(c->srv), LOG_INFO,
                   status == ACCOUNTS_ELOCKED ? &SAY_LOCKED : &SAY_FAILED, c->key,
                   "login failed conn=%llu ip=%s status=%d", (unsigned long long)c->id, c->ip,
                   status);
        conn_menu(c, msg && msg[0] ? msg : "That did not work.");
    }
    conn_unref(c);
}

/* The prompts are done: log in, register or change the password. */
static void account_submit(conn_t *c)
{
    menu_state_t *m = c->menu;
    accounts_t *a = c->srv->acc;
    uint64_t now = now_ms(c->srv);
    int ret;
    conn_ref(c);
    if (m->prompt == &prompt_login_pass) {
        conn_wait_for(c, "the login");
        ret = accounts_login(a, c->key, m->pend_name, m->line, m->line_len, now, on_account, c);
    } else if (m->prompt == &prompt_reg_pass2) {
        conn_wait_for(c, "the registration");
        ret = accounts_register(a, c->key, m->pend_name, m->line, m->line_len, now, on_account, c);
    } else {
        conn_wait_for(c, "the password change");
        ret = accounts_change_password(a, c->key, c->user, m->pend_old, strlen(m->pend_old),
                                       m->line, m->line_len, NULL, now, on_account, c);
    }
    menu_wipe_secrets(m);
    memset(m->pend_name, 0, sizeof m->pend_name);
    if (ret) {
        conn_unref(c);
        conn_menu(c, "The account service is not available.");
        return;
    }
    menu_redraw(c);
}
