### Problem documents (application/problem+json): the `title` by HTTP status
### and the `detail` by the problem's `code`. The server fills the variables
### from what the error carries; where it does not carry a message's variables
### yet, the problem is answered in English with the detail written where it
### was raised. `code` and `type` are never translated.

## Titles, by status.

problem-title-400 = Bad Request
problem-title-401 = Unauthorized
problem-title-403 = Forbidden
problem-title-404 = Not Found
problem-title-405 = Method Not Allowed
problem-title-409 = Conflict
problem-title-410 = Gone
problem-title-413 = Payload Too Large
problem-title-415 = Unsupported Media Type
problem-title-422 = Unprocessable Entity
problem-title-429 = Too Many Requests
problem-title-500 = Internal Server Error
problem-title-503 = Service Unavailable

## Details, by code.

problem-account_disabled = This account was disabled by an admin.
problem-already_entered = You are already entered in this tournament.
problem-already_member = Already a member of this club.
# $reason: timed_out (a bot played for the seat), different (another move
# stands), shows_other (a replacement shows something else)
problem-already_moved =
    { $reason ->
        [timed_out] Your seat's move for this step was already played for you after its deadline passed.
        [shows_other] A replacement must show what your sealed move already shows to the others; this one shows something else.
       *[different] You already moved in this step, with a different move (only a sealed move can be replaced, until its step's reveal).
    }
problem-already_requested = Your request to join waits for an admin's answer.
problem-already_seated = { $player } already holds a seat in this match.
problem-already_withdrawn = You have already withdrawn from this tournament.
problem-bundle_too_large = A bundle holds at most { $max } moves.
problem-busy = The server is busy; try again shortly.
problem-cannot_mute_yourself = You cannot mute yourself.
problem-chat_message_not_found = This match has no such message.
problem-chat_off = This match has no chat.
problem-chat_players_only = Only the match's players write in its chat.
problem-club_name_taken = A club already has that name.
problem-club_not_found = No club has that id.
problem-database_unavailable = The part of the database that holds this is unavailable; try again shortly.
problem-duplicate_authorization = The request has more than one Authorization header; send one.
problem-game_not_found = No game has that id.
problem-idempotency_key_reused = This Idempotency-Key was used for a different move.
problem-illegal_move = That move breaks a rule of the game: { $rule }
problem-insufficient_scope = This API token lacks the `{ $scope }` scope that this request needs.
problem-internal = internal error
problem-invalid_action = The action is not valid: { $reason }
problem-invalid_body = The request body does not have the expected fields: { $reason }
problem-invalid_characters = The { $part } holds a control character (such as NUL); no request text may.
problem-invalid_chat = chat is "players", "everyone" or "off".
problem-invalid_chat_message = A message is 1 to { $max } characters (spaces around it not counted), without control characters.
problem-invalid_club_name = A club's name has 3 to 48 characters: letters, digits, single spaces and _ - . ' &.
problem-invalid_count = count is from 1 to { $max }.
problem-invalid_credentials = The name or the password is wrong.
problem-invalid_cursor = The cursor is not one this server issued.
problem-invalid_description = A description has at most 1000 characters, without control characters but line breaks.
problem-invalid_email = That is not an email address this server can send to (like name@example.org).
problem-invalid_events = events lists kinds a webhook can filter on: "*" or some of { $kinds }.
# $field: expires_at (an API token) or invitation_expires_in
problem-invalid_expiry =
    { $field ->
        [expires_at] expires_at must be in the future.
       *[invitation_expires_in] invitation_expires_in is { $min } to { $max } seconds.
    }
problem-invalid_format = format is "round_robin" or "swiss".
problem-invalid_idempotency_key = An Idempotency-Key has 1 to 255 visible ASCII characters.
problem-invalid_include = include takes only `positions`.
problem-invalid_invite = Invitations name up to { $max } players, not yourself, each once.
problem-invalid_join_code = A join code is { $length } letters and digits, as its match's owner was given it.
problem-invalid_join_policy = join_policy is "open", "request" or "invitation".
problem-invalid_last_event_id = Last-Event-ID is not a position this stream gave.
problem-invalid_limit = limit must be between 1 and { $max }.
problem-invalid_locale = locale is one of { $locales }, or null.
problem-invalid_mail_token = This link is not valid: it was used already, has expired, or a newer one was sent.
problem-invalid_max_players = max_players is from { $min } to { $max }.
# $what: player or tournament
problem-invalid_name =
    { $what ->
        [tournament] A tournament's name is 1 to 80 characters.
       *[player] A name has 3 to 32 characters: letters, digits, '_' and '-'.
    }
problem-invalid_notification_settings = A notification setting is out of range: quiet_minutes is 0 to 1440, digest_hour 0 to 23.
problem-invalid_options = The options are not valid: { $reason }
problem-invalid_path = A path segment is not valid: { $reason }
problem-invalid_position = The position is not valid: { $reason }
problem-invalid_query = The query string is not valid: { $reason }
problem-invalid_reason = A reason has at most 500 characters.
problem-invalid_role = role is "owner", "admin" or "member".
problem-invalid_round_interval = round_interval is from { $min } to { $max } seconds.
problem-invalid_rounds = A Swiss tournament has 1 to { $max } rounds; a round robin as many as it takes for everyone to meet.
problem-invalid_scopes = A token needs at least one scope: play, read, chat.
problem-invalid_authorization_request = The authorization request is not valid; the client is told why at its redirect_uri.
problem-invalid_client_id = client_id is the app's name: 1 to 64 characters, none of them control characters.
problem-invalid_redirect_uri = redirect_uri must be https, http on localhost or 127.0.0.1, or an app's private-use scheme (com.example.app:/callback), with no fragment.
problem-invalid_seat = This match has seats 0 to { $max }.
problem-invalid_seats = { $game } is played by { $seats } players, bots and you included.
problem-invalid_starts_at = starts_at is in the future.
problem-invalid_status = status is one of { $statuses }.
problem-invalid_table_size = A round robin is played in pairs: table_size is 2.
problem-invalid_ticket = The stream ticket is unknown, used, expired or no longer good for its credential.
problem-invalid_time_zone = time_zone is an IANA time zone name, like Europe/Prague or UTC.
# $reason: header, expired, revoked, unknown_player or invalid
problem-invalid_token =
    { $reason ->
        [header] The Authorization header is not `Bearer <token>`.
        [expired] The token has expired.
        [revoked] The API token was revoked.
        [unknown_player] The access token names a player that does not exist.
       *[invalid] The access token is not valid or has expired.
    }
problem-invalid_token_name = A token's name has 1 to 64 characters, none of them control characters.
problem-invalid_visibility = visibility is "public", "unlisted" or "private".
problem-invalid_wait = wait is 1 to { $max } seconds, and goes with after_version.
problem-invalid_webhook_url = The webhook URL is not one the server posts to: { $reason }
problem-invitation_answered = You already answered this invitation ({ $status }).
problem-invitation_declined = You declined this invitation; ask its owner for the join code.
problem-invitation_expired = Your invitation expired at { $expires_at }.
problem-invitation_not_found = You hold no invitation to this match.
problem-invitation_required = This club takes members by invitation only.
problem-join_code_not_found = No match waiting for players has this join code.
problem-malformed_json = The request body is not valid JSON: { $reason }
problem-match_full = Every seat is taken.
# $status: the match's status (waiting, finished, aborted)
problem-match_not_active = This match is { $status }; it takes no moves.
problem-match_not_finished = A rematch is offered once the match is finished.
problem-match_not_found = No match has that id.
problem-match_not_waiting = This match is no longer waiting for players: it can be joined or left only before it starts.
problem-match_over = The match is already over.
problem-member_not_found = That player has no place in this club (no membership, request or invitation).
problem-method_not_allowed = This resource allows only: { $allow }.
problem-name_taken = That name is already taken.
problem-not_admin = Only an admin may do this.
problem-not_chat_moderator = Only a message's author, the match's owner and the server's admins delete it.
problem-not_club_admin = Only the club's owner and admins may do this.
problem-not_club_member = Only the club's members take part in its matches.
problem-not_club_owner = Only the club's owner gives roles.
problem-not_enough_players = Too few players to start: { $seated } seated, { $needed } needed.
problem-not_entered = You are not entered in this tournament.
problem-not_found = There is nothing at { $path }.
problem-not_owner = Only the owner may do this.
problem-not_seated = You do not hold a seat in this match.
problem-not_your_turn = It is not your turn: the match awaits seats { $awaiting }.
problem-own_account = An admin cannot disable their own account.
problem-own_admin_role = An admin cannot revoke their own role; another admin (or the command line) can.
problem-own_role = The owner hands the club over by making another member the owner.
problem-owner_must_hand_over = The owner leaves after making another member the owner (PUT …/members/{"{"}name{"}"}/role).
problem-password_changed_concurrently = The password was changed by another request meanwhile; log in again.
problem-password_session_required = This needs a token from POST /api/v1/auth/token (a name and password), not an API token.
problem-payload_too_large = The request body is too large.
problem-player_not_found = No player has that name.
# $reason: not_started, or beyond (the step is past the match's last)
problem-position_not_found =
    { $reason ->
        [not_started] This match has not started: it has no positions yet.
       *[beyond] This match has no position { $step }: its positions are 0 to { $last }.
    }
problem-rate_limited = Too many requests from this address or account ({ $limit } a minute); retry in { $wait } s.
problem-reliability_too_low = This match asks for a reliability of at least { $minimum }; yours is { $ratio } ({ $met } of { $owed } deadlines met).
problem-request_not_found = That player has no request to join waiting.
problem-seat_forfeited = Your seat forfeited this match; it takes no more moves from you.
problem-seat_taken = Seat { $seat } is taken.
problem-spectators_not_allowed = This match is played without spectators; it can be read once it is over.
problem-stale_step = The match is at step { $current_step }, not { $step }.
problem-token_not_found = You have no API token with that id.
problem-too_many_clubs = An account may own at most { $max } clubs; hand one over first.
problem-too_many_confirmations = Several confirmation mails went out in the last hour; try again later.
problem-too_many_invitations = An account may have at most { $max } invitations waiting for an answer; withdraw some or wait for answers first.
problem-too_many_tokens = A player holds at most { $max } live tokens; revoke one first.
problem-too_many_tournaments = An account may have at most { $max } tournaments of its own registering or running; cancel one or let one finish first.
problem-too_many_waiting_matches = An account may own at most { $max } matches waiting for players; start or cancel one of yours first.
problem-too_many_webhooks = A player holds at most { $max } webhooks; delete one first.
problem-tournament_full = This tournament takes { $max } entrants.
problem-tournament_not_found = No tournament has that id.
problem-tournament_over = This tournament is over.
problem-tournament_started = This tournament no longer takes entries: it has started or is over.
problem-unauthorized = This request needs an access token: Authorization: Bearer <token>.
problem-unknown_bot = There is no bot { $bot } for this game; its bots are: { $bots }.
problem-unknown_game = There is no game { $game }; the games are: { $games }.
problem-unknown_invitee = There is no player { $name } to invite.
problem-unsubscribe_link_invalid = This unsubscribe link is not valid.
problem-unsupported_media_type = The request body must be JSON (Content-Type: application/json).
problem-weak_password = A password has at least 8 characters (and at most 1024 bytes).
problem-webhook_not_found = You have no webhook with that id.
problem-wrong_password = The password is wrong.

problem-invalid_extension = An extension goes to a seat of the match, for 1 second to a week.
problem-own_seat = A seat cannot give itself time; another seat of the match may.
problem-seat_not_awaited = That seat owes no move of its own now: time is given to a seat that is thinking.
problem-no_clock = This match has no clock: there is no time to give.
problem-on_vacation = You are on vacation until { $until }: come back first.
problem-not_on_vacation = You are not on vacation.
problem-vacations_off = This server gives no vacations.
problem-invalid_vacation = A vacation is a whole number of days, from 1 to the { $days_left } you have left.
