### The web client: every word of its pages but the games' own (games.ftl).

## Page frame and navigation

skip-to-content = Skip to content
nav-main = Main
nav-lobby = Lobby
nav-clubs = Clubs
nav-tournaments = Tournaments
nav-leaderboards = Leaderboards
nav-your-dashboard = Your dashboard
nav-account = Account
nav-log-out = Log out
nav-log-in = Log in / register
language-menu = Language
footer-api-docs = API documentation
not-found-title = Not found
back-to-lobby = Back to the lobby
loading = Loading…
toast-signed-out = You are signed out.
toast-done = { $action }: done.
error-unreachable = The server cannot be reached.
error-http = HTTP error { $status }

## Times, numbers, common words

count-seconds =
    { $count ->
        [one] { $count } second
       *[other] { $count } seconds
    }
span-s = { $s } s
span-min-s = { $min } min { $s } s
span-h-min = { $h } h { $min } min
span-d-h = { $d } d { $h } h
time-in = in { $span }
time-ago = { $span } ago
countdown-time-up = time is up
numbers-caption = Numbers: { $caption }
chart-no-data = no data yet
value-none = none
value-yes = yes
value-no = no
field-name = Name
field-password = Password

## Statuses

status-waiting = waiting
status-active = active
status-finished = finished
status-aborted = aborted
visibility-public = public
visibility-unlisted = unlisted
visibility-private = private
presence-absent = absent
presence-forfeited = forfeited
bot-random = random
bot-heuristic = heuristic

## Seats

seat-free = free seat
seat-free-short = free
seat-n = seat { $seat }
seat-bot = bot { $kind }
seat-you = you
seat-deciding = deciding
seat-to-move = to move
seat-bank = bank { $time }
seat-bank-title = The seat's time in hand: its bank runs while it owes a move.
seat-graces = { $n ->
    [one] 1 grace left
   *[other] { $n } graces left
}
seat-graces-title = Grace extensions: when the seat's time runs out, it gets more this many times before the timeout applies.
action-give-time = +{ $time }
action-give-time-title = Give seat { $seat } more time to think
toast-time-given = Seat { $seat } got { $time } more.
seat-away = on vacation until { $until }
seat-away-title = The player is on vacation: the seat's clock stands until then.

## Table columns

col-rank = Rank
col-seat = Seat
col-player = Player
col-players = Players
col-score = Score
col-round = Round
col-date = Date
col-game = Game
col-games = Games
col-rating = Rating
col-finished = Finished
col-points = Points

## Buttons

action-join = Join
action-leave = Leave
action-add-bot = Add bot
action-start = Start
action-cancel = Cancel
action-cancel-match = Cancel match
action-result = Result
action-open = Open
action-watch = Watch
action-accept = Accept
action-decline = Decline
action-refresh = Refresh
action-log-in-to-join = Log in to join
action-play-again = Play again
action-i-am-back = I am back
action-resign = Resign
action-change-move = Change my move
action-keep-move = Keep my move
confirm-cancel-match = Cancel this match?
confirm-resign = Resign? Your seat plays no more and ranks last.

## Logging in and the account

sign-in-title = Sign in
login-title = Log in
login-submit = Log in
register-title = Register
register-name = Name (3 to 32 letters, digits, _ or -)
register-password = Password (at least 8 characters)
register-submit = Create account
toast-welcome = Welcome, { $name }.
account-title = Account: { $name }
account-moderation-link = Moderation (admins)
account-member-since = Member since { $date }.
password-title = Change password
password-current = Current password
password-new = New password
password-revoke-tokens = Also revoke every API token
password-submit = Change password
toast-password-changed = Password changed; other sessions are signed out.
delete-title = Delete account
delete-explained = Your seats in active matches are resigned and your waiting matches left. The matches you played keep your moves under an anonymous name; your name stays reserved. This cannot be undone.
delete-sure = I want to delete my account
delete-submit = Delete my account
toast-account-deleted = Your account is deleted.
mutes-title = Muted players
mutes-none = Nobody. Mute a player from a match's chat to hide their messages from you.
mutes-unmute = Unmute
tokens-title = API tokens
tokens-explained = For bots and scripts: a token acts for you without your password.
tokens-scope = Scope
tokens-scope-play = play (every request)
tokens-scope-read = read (GET only)
tokens-expires = Expires (optional)
tokens-submit = Create token
tokens-copy-now = Copy it now, it is shown only once:
tokens-none = No tokens yet.
tokens-col-scopes = Scopes
tokens-col-created = Created
tokens-col-last-used = Last used
tokens-col-expires = Expires
tokens-never = never
tokens-revoked-at = revoked { $at }
tokens-revoke = Revoke
oauth-title = Allow { $client } to use your account?
oauth-sign-in-title = Sign in to continue to { $client }
oauth-sign-in-explained = An app asks to act for you. Sign in here, on this server's own page: the app never sees your password.
oauth-client-note = The app gave itself this name, and any app may choose any name: check the address it sends you back to.
oauth-redirect = It will send you back to:
oauth-asks = It asks to:
oauth-scope-read = see your matches, turns, invitations and profile
oauth-scope-play = play for you: create, join and leave matches, move, resign and answer invitations
oauth-scope-chat = write in your matches' chats as you, and mute players
oauth-never = It can never see or change your password, your mail settings, your webhooks or your tokens. Its access lasts a year; take it away at any time on your account page (API tokens, under its name).
oauth-signed-in-as = Signed in as { $name }.
oauth-allow = Allow
oauth-deny = Deny
oauth-leaving = Returning to the app…
oauth-error-title = This sign-in request cannot be answered

## Lobby

lobby-filter-game = Filter by game
lobby-all-games = All games
lobby-your-turns = Your turns
lobby-log-in = Log in
lobby-log-in-to-play = to play; anyone may watch.
lobby-nothing-owed = Nothing owed. New matches appear here when it is your move.
lobby-owed-since = owed { $since }
lobby-bot-stands-in = a bot stands in
lobby-join-code = Join code
lobby-join-code-example = e.g. K7PQ-2MXD-9R
lobby-invitations = Invitations
lobby-no-invitations = Nobody has invited you to a match.
lobby-invites-you = { $name } invites you
lobby-expires = expires { $when }
lobby-have-join-code = Have a join code?
lobby-your-matches = Your matches
lobby-none-in-progress = None in progress.
lobby-finished-and-stats = Finished matches and statistics
lobby-open-matches = Open matches
lobby-no-open = No match is waiting for players. Create one!
lobby-being-played = Being played
lobby-nothing-now = Nothing right now.
create-title = New match
create-game = Game
create-seats = Seats
create-bots = Bots
create-bot-kind = Bot kind
create-who-may-join = Who may join
create-invite = Invite
create-club = Club
create-no-club = No club
create-visibility-public = Public: in the lobby
create-visibility-unlisted = Unlisted: whoever has the link
create-visibility-private = Private: invited players and the join code
create-invite-placeholder = names, separated by commas
create-submit = Create match
game-statistics-link = { $game }: statistics

## A match

match-seats = Seats
match-board = Board
match-your-move = Your move
match-round = round { $round }
match-rated = rated
match-unrated = unrated
match-clock-bank = bank { $initial } + { $increment } a move
match-playing-hours = clocks run { $from }–{ $to } ({ $zone })
match-playing-hours-title = The banks run only within these hours of each day, in the match's time zone; outside them every clock stands.
match-rematch-of = rematch
match-created = created { $when }
match-commitment = seed commitment { $hash }…
match-commitment-title = SHA-256 of the seed, published at creation: { $hash }. The seed itself is revealed at the end; the replay checks them.
live-title = Moves appear as they are made
live-connecting = connecting…
live-on = live
live-reconnecting = reconnecting…
waiting-seats = Waiting for players: { $taken } of { $total } seats taken.
waiting-starts-when = The match starts when every seat is taken, or when its owner starts it.
waiting-invite-address = Invite others with this address
waiting-join-code = Join code (yours to hand out)
prompt-your-move = Your move:
prompt-waiting-for = Waiting for { $who } ({ $kind })
prompt-sealed = sealed
prompt-order-sealed = Your order is sealed. Waiting for the others.
prompt-change-move = Choose again: the new move replaces your sealed one, until everybody has moved.
hand-title = Your hand
hand-label = Your hand: { $cards }
result-title = Result
result-aborted = Aborted
result-replay = Replay move by move
result-rated = Rated.
result-unrated = Unrated.
rounds-title = Rounds
rounds-none = No round resolved yet.
rounds-about = About
rounds-outcome = Outcome
rounds-as = as { $kind }
rounds-stake = stake { $stake }
rules-title = Rules of { $game } in short
rules-read-in = Read in:
chat-title = Chat
chat-placeholder = Say something…
chat-message = Message
chat-send = Send
chat-deleted = message deleted
chat-delete = delete
chat-delete-label = Delete this message
chat-mute = mute
chat-mute-label = Mute { $name }
toast-muted = { $name } is muted; unmute from your account page.
chat-none = No message yet.
chat-players-only = Only the players write here.
chat-log-in = Log in to write.

## The controls of a move

controls-choose = choose…
controls-choose-field = Choose: { $field }.
controls-not-legal = That combination is not a legal move.
controls-range = { $field } ({ $min }–{ $max })
controls-subset =
    { $field }: { $min ->
        [0] up to { $max }
       *[other] { $min } to { $max }
    }, in order
controls-subset-pick = Pick { $min } to { $max }: { $field }.

## Replay and fairness

replay-title = Replay: { $game }
replay-match-page = match page
replay-first = First (Home)
replay-previous = Previous move (←)
replay-next = Next move (→)
replay-last = Last (End)
replay-move = Move
replay-moves = Moves
replay-position = Move { $at } of { $total }
replay-step = step { $step }
replay-setup = The match as set up, before the first move.
replay-rounds-done = { $done } of { $total } rounds resolved
replay-gains = gains so far { $gains }
replay-chart = Gains by round, added up
replay-round = Round { $round }
replay-round-short = R{ $round }
replay-numbers = scores by round
replay-final-position = Final position
replay-position-at = Position at step { $step }
fair-title = Fairness
fair-committed = Committed at creation (SHA-256 of the seed):
fair-revealed = Seed revealed at the end:
fair-not-yet = not yet
fair-no-subtle = This browser computes SHA-256 only on https pages; check the seed with docs/verify-fairness.py instead.
fair-computed = SHA-256 of the seed, computed in your browser:
fair-ok = The seed matches its commitment: the deals were fixed before the first move.
fair-bad = The seed does NOT match its commitment.
fair-explained = Every shuffle and draw can be recomputed from the seed: see docs/fairness.md in the repository. The server can also replay the whole bundle with its engines:
fair-server-button = Replay it on the server
fair-server-ok = Replayed: every move legal, rounds and result identical, data and seed match.

## Dashboards

player-rating-history = Rating history
player-rating-explained = Conservative rating (μ − 3σ, Weng-Lin) after each rated match.
player-rating-chart = Rating history of { $name }
player-rating-numbers = rating after each rated match
player-rating-now = Now:
player-rating-current =
    { $game } { $rating } ({ $wins ->
        [one] { $wins } win
       *[other] { $wins } wins
    } in { $games })
player-figures-label = { $game }: figures
player-none-finished = { $played } played, none finished yet.
player-best-round = Best round: +{ $delta } in round { $round } of
player-this-match = this match
player-recent-results = Recent results
player-result-link = result
player-replay-link = replay
player-no-finished = No finished match yet.
player-bot = bot
player-since = Playing since { $date }.
player-reliability = Reliability
player-reliability-explained = Deadlines met against deadlines owed in matches with a clock, over the last { $days } days. A time-out is a missed deadline.
player-reliability-summary = { $met } of { $owed } deadlines met ({ $ratio })
player-reliability-none = No deadline owed in the last { $days } days.
player-reliability-game = { $game }: { $met } of { $owed } ({ $ratio })
fig-played = played
fig-finished = finished
fig-won = won
fig-win-rate = win rate
fig-average-rank = average rank
fig-average-score = average score
fig-rating = rating
fig-finished-matches = finished matches
fig-rounds = rounds
stats-window = Window
stats-all-time = all time
stats-last-days = last { $days } days
stats-from-to = from … to …
stats-any = any
stats-since = Since
stats-until = Until
stats-outcome-shares = Outcome shares
stats-outcome-chart = Share of rounds per outcome
stats-no-rounds = No rounds in this window.
stats-outcomes = outcomes
stats-share = Share
stats-by-value = By value
stats-by-value-chart = Outcome share by value
stats-value = Value
stats-seat-position = Seat position
stats-seat-position-explained = Win rate by seat offset from the first round's lead seat: does sitting first help?
stats-seat-position-chart = Win rate by seat position
stats-position = position { $position }
stats-position-col = Position
stats-seat-positions = seat positions
stats-seats = Seats
stats-wins = Wins
stats-no-data = No data.
stats-roles = Roles
stats-roles-chart = Win rate by role
stats-role = Role
stats-by-kind = By kind
stats-plays-by-kind = Plays by kind
stats-no-plays = No plays recorded.
stats-matches = Matches
stats-matches-chart = Matches by player count and variant
stats-players-variant = { $players } p · { $variant }
stats-variant = Variant
stats-key = Key
stats-plays = Plays
stats-successes = Successes
stats-success-rate = Success rate
stats-success-rate-of = { $title }: success rate
stats-avg-stake = Avg stake
stats-avg-payoff = Avg payoff
leaderboard-link = Leaderboard
leaderboard-games = Games
leaderboard-top-ten = Top ten by rating (μ − 3σ)
leaderboard-chart = Top ratings
leaderboard-none = No rated match finished yet.

## Clubs

clubs-search = Search
clubs-search-placeholder = Name starts with…
clubs-none = No club yet.
clubs-members-count =
    { $count ->
        [one] { $count } member
       *[other] { $count } members
    }
clubs-found-title = Found a club
clubs-found-submit = Found the club
clubs-description = Description
club-policy-open = Open: anyone joins
club-policy-request = On request: an admin accepts
club-policy-invitation = By invitation only
club-role-owner = owner
club-role-admin = admin
club-role-member = member
club-role-requested = requested
club-role-invited = invited
club-owner = owner
club-since = since { $date }
toast-club-member = You are a member.
toast-club-requested = Your request is sent.
club-ask-to-join = Ask to join
club-accept-invitation = Accept the invitation
club-new-match = New club match
club-withdraw-request = Withdraw the request
club-members = Members
club-remove = Remove
club-invite = Invite
club-invite-player = Invite a player
toast-club-invited = { $name } is invited.
club-requests-title = Requests and invitations
club-asked = asked { $date }
club-no-requests = No request waiting.
club-invited = Invited:
club-no-matches = No club match yet.
club-board-none = No finished club match of this game yet.

## Tournaments

tournaments-none = No tournament yet.
tournaments-entrants = { $entrants } of { $max }
tournament-format-swiss = Swiss
tournament-format-round_robin = Round robin
tournament-status-registering = registering
tournament-status-running = running
tournament-status-finished = finished
tournament-status-cancelled = cancelled
tournament-new = New tournament
tournament-format = Format
tournament-table-size = Seats at a table
tournament-rounds = Rounds (Swiss)
tournament-rounds-automatic = automatic
tournament-max = Most entrants
tournament-create-submit = Create tournament
tournament-nobody = Nobody has entered yet.
tournament-byes = Byes
tournament-withdrawn = withdrawn
tournament-no-round = No round has started.
tournament-table = Table { $table }
tournament-in-play = in play
tournament-bye = Bye: { $names }
tournament-tables-of = tables of { $size }
tournament-round-of = round { $round } of { $rounds }
tournament-starts = starts { $date }
tournament-enter = Enter
tournament-withdraw = Withdraw
tournament-add-bots = Add bots
tournament-start-now = Start now
tournament-standings = Standings
tournament-ties = Ties: Buchholz (opponents' points), then Sonneborn-Berger, then wins, then entry order.

## Moderation

admin-title = Moderation
admin-audit-log = Audit log
admin-when = When
admin-who = Who
admin-action = Action
admin-target = Target
admin-reason = Reason
admin-nothing = Nothing yet.
admin-reason-placeholder = optional, kept in the audit log
admin-match-id = match id
admin-match = Match
admin-disable = Disable
admin-enable = Enable
admin-grant = Grant admin
admin-revoke = Revoke admin
admin-cancel-match = Cancel the match

## Mail: the account page's card, the login page's reset form, and the pages
## the mailed links open.

notify-title = Email notifications
notify-mail-off = This server sends no mail: it has no mail server configured.
notify-address = Email address
notify-address-none = No address yet: nothing is mailed to you, and a forgotten password cannot be reset.
notify-address-unconfirmed = { $address }: not confirmed yet. Open the link mailed to it.
notify-address-confirmed = { $address }: confirmed. Nobody else sees it.
notify-address-save = Save the address
notify-address-remove = Remove the address
notify-address-sent = A confirmation link is on its way to { $address }.
notify-your-turn = When it is your turn
notify-your-turn-immediately = Mail me at once (at most one mail per match in the quiet period, none while I have the match open)
notify-your-turn-daily_digest = One mail a day listing my turns
notify-your-turn-off = Never
notify-quiet = Quiet period per match, in minutes
notify-digest-hour = Hour of the daily mail
notify-time-zone = Time zone
notify-invitations = Somebody invites me to a match
notify-match-started = A match of mine starts
notify-match-finished = A match of mine ends
notify-reminders = Reminders 24 h and 1 h before my move falls due
notify-save = Save the settings
toast-notify-saved = Notification settings saved.
forgot-title = Forgot your password?
forgot-explained = Give your name or your confirmed address. If the account has a confirmed address, a link to set a new password is mailed to it.
forgot-login = Name or email address
forgot-submit = Mail me a link
forgot-sent = If there is such an account with a confirmed address, a link is on its way. It works once, for 30 minutes.
confirm-email-title = Confirm your address
confirm-email-done = Your address is confirmed.
link-failed = This link did not work: { $reason }
reset-title = Choose a new password
reset-submit = Set the password
reset-done = Your password is set, and every session of your account has ended.
unsubscribe-title = Unsubscribe
unsubscribe-question = Stop the mails about { $topic }?
unsubscribe-topic-your_turn = your turns
unsubscribe-topic-deadline_reminders = deadlines
unsubscribe-topic-invitations = invitations
unsubscribe-topic-match_started = matches starting
unsubscribe-topic-match_finished = matches ending
unsubscribe-submit = Unsubscribe
unsubscribe-done = Done: you will not get these mails any more. You can turn them on again on your account page.

## Vacation

vacation-title = Vacation
vacation-explained = While you are on vacation every clock of your seats stands, the other players are told, and the lobby seats you in no new match. You may come back early.
vacation-none = You are not on vacation.
vacation-until = You are on vacation until { $until }.
vacation-allowance = { $left } of { $total } days left in any 365 days.
vacation-days = Days
vacation-start = Go on vacation
vacation-end = I am back
toast-vacation-started = Your clocks stand until you are back.
toast-vacation-ended = Welcome back: your clocks run again.
