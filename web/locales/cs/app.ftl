### Webový klient: všechna slova stránek kromě slov samotných her (games.ftl).

## Rám stránky a navigace

skip-to-content = Přeskočit na obsah
nav-main = Hlavní nabídka
nav-lobby = Herna
nav-clubs = Kluby
nav-tournaments = Turnaje
nav-leaderboards = Žebříčky
nav-your-dashboard = Váš přehled
nav-account = Účet
nav-log-out = Odhlásit se
nav-log-in = Přihlásit se / registrovat
language-menu = Jazyk
footer-api-docs = Dokumentace API
not-found-title = Stránka nenalezena
back-to-lobby = Zpět do herny
loading = Načítám…
toast-signed-out = Byli jste odhlášeni.
toast-done = { $action }: hotovo.
error-unreachable = Server je nedostupný.
error-http = Chyba HTTP { $status }

## Čas, čísla, běžná slova

count-seconds =
    { $count ->
        [one] { $count } sekunda
        [few] { $count } sekundy
        [many] { $count } sekundy
       *[other] { $count } sekund
    }
span-s = { $s } s
span-min-s = { $min } min { $s } s
span-h-min = { $h } h { $min } min
span-d-h = { $d } d { $h } h
time-in = za { $span }
time-ago = před { $span }
countdown-time-up = čas vypršel
numbers-caption = Čísla: { $caption }
chart-no-data = zatím žádná data
value-none = nic
value-yes = ano
value-no = ne
field-name = Jméno
field-password = Heslo

## Stavy

status-waiting = čeká
status-active = hraje se
status-finished = skončil
status-aborted = zrušen
visibility-public = veřejný
visibility-unlisted = neuvedený
visibility-private = soukromý
presence-absent = chybí
presence-forfeited = vzdáno
bot-random = náhodný
bot-heuristic = uvážlivý

## Místa u stolu

seat-free = volné místo
seat-free-short = volno
seat-n = místo { $seat }
seat-bot = bot ({ $kind })
seat-you = vy
seat-deciding = rozhoduje se
seat-to-move = na tahu
seat-bank = zásoba { $time }
seat-bank-title = Čas, který místo má v zásobě: ubíhá, dokud je místo na tahu.
seat-graces = { $n ->
    [one] zbývá 1 odklad
    [few] zbývají { $n } odklady
   *[other] zbývá { $n } odkladů
}
seat-graces-title = Odklady: když místu vyprší čas, dostane ho tolikrát navíc, než se uplatní pravidlo pro vypršení času.
action-give-time = +{ $time }
action-give-time-title = Dát místu { $seat } víc času na rozmyšlenou
toast-time-given = Místo { $seat } dostalo { $time } navíc.
seat-away = na dovolené do { $until }
seat-away-title = Hráč je na dovolené: hodiny tohoto místa do té doby stojí.

## Sloupce tabulek

col-rank = Pořadí
col-seat = Místo
col-player = Hráč
col-players = Hráči
col-score = Body
col-round = Kolo
col-date = Datum
col-game = Hra
col-games = Partie
col-rating = Hodnocení
col-finished = Skončil
col-points = Body

## Tlačítka

action-join = Přisednout
action-leave = Odejít
action-add-bot = Přidat bota
action-start = Začít
action-cancel = Zrušit
action-cancel-match = Zrušit zápas
action-result = Výsledek
action-open = Otevřít
action-watch = Sledovat
action-accept = Přijmout
action-decline = Odmítnout
action-refresh = Obnovit
action-log-in-to-join = Přihlaste se a přisedněte
action-play-again = Hrát znovu
action-i-am-back = Jsem zpět
action-resign = Vzdát se
action-change-move = Změnit tah
action-keep-move = Ponechat tah
confirm-cancel-match = Opravdu zrušit tento zápas?
confirm-resign = Vzdát se? Vaše místo už nebude hrát a skončí poslední.

## Přihlášení a účet

sign-in-title = Přihlášení
login-title = Přihlásit se
login-submit = Přihlásit se
register-title = Registrace
register-name = Jméno (3 až 32 písmen, číslic, _ nebo -)
register-password = Heslo (aspoň 8 znaků)
register-submit = Založit účet
toast-welcome = Vítejte, { $name }.
account-title = Účet: { $name }
account-moderation-link = Moderování (pro správce)
account-member-since = Členem od { $date }.
password-title = Změna hesla
password-current = Současné heslo
password-new = Nové heslo
password-revoke-tokens = Zrušit také všechny API tokeny
password-submit = Změnit heslo
toast-password-changed = Heslo je změněno; ostatní relace jsou odhlášeny.
delete-title = Smazání účtu
delete-explained = Vaše místa v rozehraných zápasech se vzdají a z čekajících zápasů odejdete. Odehrané zápasy si vaše tahy ponechají pod anonymním jménem; vaše jméno zůstane zablokované. Tento krok nelze vrátit.
delete-sure = Chci svůj účet smazat
delete-submit = Smazat můj účet
toast-account-deleted = Váš účet je smazán.
mutes-title = Umlčení hráči
mutes-none = Nikdo. Hráče umlčíte v chatu zápasu; jeho zprávy pak neuvidíte.
mutes-unmute = Zrušit umlčení
tokens-title = API tokeny
tokens-explained = Pro boty a skripty: token jedná za vás bez vašeho hesla.
tokens-scope = Oprávnění
tokens-scope-play = play (každý požadavek)
tokens-scope-read = read (jen GET)
tokens-expires = Platnost do (nepovinné)
tokens-submit = Vytvořit token
tokens-copy-now = Zkopírujte si ho hned, zobrazí se jen jednou:
tokens-none = Zatím žádné tokeny.
tokens-col-scopes = Oprávnění
tokens-col-created = Vytvořen
tokens-col-last-used = Naposledy použit
tokens-col-expires = Platnost do
tokens-never = nikdy
tokens-revoked-at = zrušen { $at }
tokens-revoke = Zrušit
oauth-title = Povolit aplikaci { $client } používat váš účet?
oauth-sign-in-title = Přihlaste se a pokračujte do { $client }
oauth-sign-in-explained = Aplikace žádá, aby mohla jednat za vás. Přihlaste se zde, na vlastní stránce tohoto serveru: aplikace vaše heslo nikdy neuvidí.
oauth-client-note = Tento název si aplikace dala sama a každá aplikace si může zvolit jakýkoli: ověřte si adresu, na kterou vás pošle zpět.
oauth-redirect = Pošle vás zpět na:
oauth-asks = Žádá o to, aby mohla:
oauth-scope-read = vidět vaše partie, tahy, pozvánky a profil
oauth-scope-play = hrát za vás: zakládat partie, přidávat se k nim a odcházet z nich, táhnout, vzdávat a odpovídat na pozvánky
oauth-scope-chat = psát vaším jménem do chatu vašich partií a ztišovat hráče
oauth-never = Vaše heslo, nastavení pošty, webhooky ani tokeny nikdy neuvidí ani nezmění. Přístup platí rok; kdykoli ho můžete odebrat na stránce svého účtu (API tokeny, pod jejím názvem).
oauth-signed-in-as = Přihlášen(a) jako { $name }.
oauth-allow = Povolit
oauth-deny = Odmítnout
oauth-leaving = Návrat do aplikace…
oauth-error-title = Na tuto žádost o přihlášení nelze odpovědět

## Herna

lobby-filter-game = Filtrovat podle hry
lobby-all-games = Všechny hry
lobby-your-turns = Jste na tahu
lobby-log-in = Přihlaste se,
lobby-log-in-to-play = chcete-li hrát; dívat se může každý.
lobby-nothing-owed = Nikde nejste na tahu. Zápasy se tu objeví, až na vás přijde řada.
lobby-owed-since = na tahu { $since }
lobby-bot-stands-in = zastupuje vás bot
lobby-join-code = Kód pro připojení
lobby-join-code-example = např. K7PQ-2MXD-9R
lobby-invitations = Pozvánky
lobby-no-invitations = Do žádného zápasu vás nikdo nepozval.
lobby-invites-you = { $name } vás zve
lobby-expires = vyprší { $when }
lobby-have-join-code = Máte kód pro připojení?
lobby-your-matches = Vaše zápasy
lobby-none-in-progress = Žádný rozehraný.
lobby-finished-and-stats = Odehrané zápasy a statistiky
lobby-open-matches = Volné zápasy
lobby-no-open = Žádný zápas nečeká na hráče. Založte nový!
lobby-being-played = Právě se hraje
lobby-nothing-now = Teď nic.
create-title = Nový zápas
create-game = Hra
create-seats = Počet hráčů
create-bots = Počet botů
create-bot-kind = Druh bota
create-who-may-join = Kdo se může přidat
create-invite = Pozvat
create-club = Klub
create-no-club = Bez klubu
create-visibility-public = Veřejný: v herně
create-visibility-unlisted = Neuvedený: kdo má odkaz
create-visibility-private = Soukromý: pozvaní a kdo má kód
create-invite-placeholder = jména oddělená čárkami
create-submit = Založit zápas
game-statistics-link = { $game }: statistiky

## Zápas

match-seats = Místa u stolu
match-board = Herní plán
match-your-move = Jste na tahu
match-round = { $round }. kolo
match-rated = hodnocený
match-unrated = nehodnocený
match-clock-bank = zásoba { $initial } + { $increment } za tah
match-playing-hours = hodiny běží { $from }–{ $to } ({ $zone })
match-playing-hours-title = Zásoby ubíhají jen v těchto hodinách dne v časovém pásmu partie; mimo ně všechny hodiny stojí.
match-rematch-of = odveta
match-created = založen { $when }
match-commitment = závazek osudí { $hash }…
match-commitment-title = SHA-256 osudí (seedu), zveřejněný při založení: { $hash }. Samotné osudí se odhalí na konci; záznam partie obojí ověří.
live-title = Tahy se objevují, jak padají
live-connecting = připojuji…
live-on = živě
live-reconnecting = znovu se připojuji…
waiting-seats = Čeká se na hráče: obsazeno { $taken } z { $total } míst.
waiting-starts-when = Zápas začne, až budou obsazena všechna místa, nebo až ho zakladatel spustí.
waiting-invite-address = Pozvěte další touto adresou
waiting-join-code = Kód pro připojení (rozdáváte ho vy)
prompt-your-move = Jste na tahu:
prompt-waiting-for = Čeká se na: { $who } ({ $kind })
prompt-sealed = skrytý tah
prompt-order-sealed = Váš rozkaz je zapečetěný. Čeká se na ostatní.
prompt-change-move = Vyberte znovu: nový tah nahradí ten zapečetěný, dokud netáhnou všichni.
hand-title = Karty v ruce
hand-label = Karty v ruce: { $cards }
result-title = Výsledek
result-aborted = Zrušeno
result-replay = Přehrát tah po tahu
result-rated = Hodnocený.
result-unrated = Nehodnocený.
rounds-title = Kola
rounds-none = Zatím žádné vyhodnocené kolo.
rounds-about = O co
rounds-outcome = Výsledek
rounds-as = ({ $kind })
rounds-stake = sázka { $stake }
rules-title = Pravidla hry { $game } ve zkratce
rules-read-in = Číst v jazyce:
chat-title = Chat
chat-placeholder = Napište něco…
chat-message = Zpráva
chat-send = Odeslat
chat-deleted = zpráva smazána
chat-delete = smazat
chat-delete-label = Smazat tuto zprávu
chat-mute = umlčet
chat-mute-label = Umlčet hráče { $name }
toast-muted = Hráč { $name } je umlčen; zrušit to můžete na stránce účtu.
chat-none = Zatím žádná zpráva.
chat-players-only = Píšou sem jen hráči.
chat-log-in = Psát mohou přihlášení.

## Ovládání tahu

controls-choose = vyberte…
controls-choose-field = Vyberte: { $field }.
controls-not-legal = Tahle kombinace není platný tah.
controls-range = { $field } ({ $min }–{ $max })
controls-subset =
    { $field }: { $min ->
        [0] nejvýše { $max }
       *[other] { $min } až { $max }
    }, v pořadí
controls-subset-pick = Vyberte { $min } až { $max }: { $field }.

## Záznam partie a férovost

replay-title = Záznam partie: { $game }
replay-match-page = stránka zápasu
replay-first = Na začátek (Home)
replay-previous = Předchozí tah (←)
replay-next = Další tah (→)
replay-last = Na konec (End)
replay-move = Tah
replay-moves = Tahy
replay-position = Tah { $at } z { $total }
replay-step = krok { $step }
replay-setup = Zápas po přípravě, před prvním tahem.
replay-rounds-done = Vyhodnoceno { $done } z { $total } kol
replay-gains = zisky zatím { $gains }
replay-chart = Zisky po kolech, sečtené
replay-round = { $round }. kolo
replay-round-short = K{ $round }
replay-numbers = body po kolech
replay-final-position = Konečná pozice
replay-position-at = Pozice v kroku { $step }
fair-title = Férovost
fair-committed = Závazek při založení (SHA-256 osudí):
fair-revealed = Osudí odhalené na konci:
fair-not-yet = zatím ne
fair-no-subtle = Tento prohlížeč počítá SHA-256 jen na stránkách https; osudí ověřte skriptem docs/verify-fairness.py.
fair-computed = SHA-256 osudí spočtený ve vašem prohlížeči:
fair-ok = Osudí odpovídá závazku: rozdání bylo dané už před prvním tahem.
fair-bad = Osudí NEODPOVÍDÁ závazku.
fair-explained = Každé míchání i lízání lze z osudí spočítat znovu: viz docs/fairness.md v repozitáři. Server umí celý záznam také přehrát svými pravidly:
fair-server-button = Přehrát na serveru
fair-server-ok = Přehráno: všechny tahy platné, kola i výsledek souhlasí, data i osudí sedí.

## Přehledy

player-rating-history = Vývoj hodnocení
player-rating-explained = Opatrné hodnocení (μ − 3σ, Weng-Lin) po každém hodnoceném zápase.
player-rating-chart = Vývoj hodnocení hráče { $name }
player-rating-numbers = hodnocení po každém hodnoceném zápase
player-rating-now = Nyní:
player-rating-current =
    { $game } { $rating } ({ $wins ->
        [one] { $wins } výhra
        [few] { $wins } výhry
        [many] { $wins } výhry
       *[other] { $wins } výher
    } z { $games })
player-figures-label = { $game }: čísla
player-none-finished = Rozehráno { $played }, zatím žádný nedohrán.
player-best-round = Nejlepší kolo: +{ $delta } v { $round }. kole
player-this-match = tohoto zápasu
player-recent-results = Poslední výsledky
player-result-link = výsledek
player-replay-link = záznam
player-no-finished = Zatím žádný odehraný zápas.
player-bot = bot
player-since = Hraje od { $date }.
player-reliability = Spolehlivost
player-reliability-explained = Dodržené termíny proti termínům, které hráč měl dodržet, v zápasech s hodinami za posledních { $days } dní. Vypršení času je nedodržený termín.
player-reliability-summary = Dodržené termíny: { $met } z { $owed } ({ $ratio })
player-reliability-none = Za posledních { $days } dní žádný termín.
player-reliability-game = { $game }: { $met } z { $owed } ({ $ratio })
fig-played = odehráno
fig-finished = dohráno
fig-won = vyhráno
fig-win-rate = podíl výher
fig-average-rank = průměrné pořadí
fig-average-score = průměrné body
fig-rating = hodnocení
fig-finished-matches = dohraných zápasů
fig-rounds = kol
stats-window = Období
stats-all-time = celou dobu
stats-last-days =
    { $days ->
        [one] poslední den
        [few] poslední { $days } dny
       *[other] posledních { $days } dní
    }
stats-from-to = od … do …
stats-any = libovolně
stats-since = Od
stats-until = Do
stats-outcome-shares = Podíly výsledků
stats-outcome-chart = Podíl kol podle výsledku
stats-no-rounds = V tomto období žádná kola.
stats-outcomes = výsledky
stats-share = Podíl
stats-by-value = Podle hodnoty
stats-by-value-chart = Podíl výsledků podle hodnoty
stats-value = Hodnota
stats-seat-position = Pořadí u stolu
stats-seat-position-explained = Podíl výher podle toho, o kolik míst sedí hráč za tím, kdo v prvním kole začínal: pomáhá hrát první?
stats-seat-position-chart = Podíl výher podle pořadí u stolu
stats-position = pozice { $position }
stats-position-col = Pořadí
stats-seat-positions = pořadí u stolu
stats-seats = Míst
stats-wins = Výhry
stats-no-data = Žádná data.
stats-roles = Role
stats-roles-chart = Podíl výher podle role
stats-role = Role
stats-by-kind = Podle druhu
stats-plays-by-kind = Tahy podle druhu
stats-no-plays = Žádné zaznamenané tahy.
stats-matches = Zápasy
stats-matches-chart = Zápasy podle počtu hráčů a varianty
stats-players-variant = { $players } h. · { $variant }
stats-variant = Varianta
stats-key = Co
stats-plays = Zahráno
stats-successes = Úspěchů
stats-success-rate = Úspěšnost
stats-success-rate-of = { $title }: úspěšnost
stats-avg-stake = Prům. sázka
stats-avg-payoff = Prům. zisk
leaderboard-link = Žebříček
leaderboard-games = Hry
leaderboard-top-ten = Nejlepší desítka podle hodnocení (μ − 3σ)
leaderboard-chart = Nejvyšší hodnocení
leaderboard-none = Zatím žádný dohraný hodnocený zápas.

## Kluby

clubs-search = Hledat
clubs-search-placeholder = Název začíná na…
clubs-none = Zatím žádný klub.
clubs-members-count =
    { $count ->
        [one] { $count } člen
        [few] { $count } členové
       *[other] { $count } členů
    }
clubs-found-title = Založit klub
clubs-found-submit = Založit klub
clubs-description = Popis
club-policy-open = Otevřený: přidat se může kdokoli
club-policy-request = Na žádost: přijímá správce
club-policy-invitation = Jen na pozvání
club-role-owner = majitel
club-role-admin = správce
club-role-member = člen
club-role-requested = žádá o členství
club-role-invited = pozván
club-owner = majitel
club-since = od { $date }
toast-club-member = Jste členem.
toast-club-requested = Žádost je odeslána.
club-ask-to-join = Požádat o členství
club-accept-invitation = Přijmout pozvání
club-new-match = Nový klubový zápas
club-withdraw-request = Stáhnout žádost
club-members = Členové
club-remove = Vyloučit
club-invite = Pozvat
club-invite-player = Pozvat hráče
toast-club-invited = Hráč { $name } je pozván.
club-requests-title = Žádosti a pozvánky
club-asked = žádá od { $date }
club-no-requests = Žádná čekající žádost.
club-invited = Pozvaní:
club-no-matches = Zatím žádný klubový zápas.
club-board-none = Zatím žádný dohraný klubový zápas této hry.

## Turnaje

tournaments-none = Zatím žádný turnaj.
tournaments-entrants = { $entrants } z { $max }
tournament-format-swiss = Švýcarský systém
tournament-format-round_robin = Každý s každým
tournament-status-registering = přihlašování
tournament-status-running = probíhá
tournament-status-finished = skončil
tournament-status-cancelled = zrušen
tournament-new = Nový turnaj
tournament-format = Systém
tournament-table-size = Hráčů u stolu
tournament-rounds = Kol (švýcarský systém)
tournament-rounds-automatic = automaticky
tournament-max = Nejvíc účastníků
tournament-create-submit = Založit turnaj
tournament-nobody = Zatím se nikdo nepřihlásil.
tournament-byes = Volna
tournament-withdrawn = mimo turnaj
tournament-no-round = Ještě nezačalo žádné kolo.
tournament-table = Stůl { $table }
tournament-in-play = hraje se
tournament-bye = Volno: { $names }
tournament-tables-of = stoly po { $size }
tournament-round-of = { $round }. kolo z { $rounds }
tournament-starts = začíná { $date }
tournament-enter = Přihlásit se
tournament-withdraw = Odstoupit
tournament-add-bots = Přidat boty
tournament-start-now = Začít hned
tournament-standings = Pořadí
tournament-ties = Při rovnosti rozhoduje Buchholz (body soupeřů), pak Sonneborn-Berger, pak výhry, pak pořadí přihlášení.

## Moderování

admin-title = Moderování
admin-audit-log = Záznam zásahů
admin-when = Kdy
admin-who = Kdo
admin-action = Zásah
admin-target = Čeho se týká
admin-reason = Důvod
admin-nothing = Zatím nic.
admin-reason-placeholder = nepovinné, uloží se do záznamu
admin-match-id = id zápasu
admin-match = Zápas
admin-disable = Zablokovat
admin-enable = Odblokovat
admin-grant = Udělit roli správce
admin-revoke = Odebrat roli správce
admin-cancel-match = Zrušit zápas

## Pošta: karta na stránce účtu, formulář pro obnovu hesla na přihlašovací
## stránce a stránky, které otevírají odkazy z e-mailů.

notify-title = Upozornění e-mailem
notify-mail-off = Tento server neposílá e-maily: nemá nastavený poštovní server.
notify-address = E-mailová adresa
notify-address-none = Zatím žádná adresa: nic vám nepošleme a zapomenuté heslo nepůjde obnovit.
notify-address-unconfirmed = { $address }: zatím nepotvrzená. Otevřete odkaz, který jsme na ni poslali.
notify-address-confirmed = { $address }: potvrzená. Nikdo jiný ji nevidí.
notify-address-save = Uložit adresu
notify-address-remove = Odebrat adresu
notify-address-sent = Na adresu { $address } posíláme odkaz pro potvrzení.
notify-your-turn = Když jsem na tahu
notify-your-turn-immediately = Napište mi hned (nejvýše jeden e-mail za partii v klidové době, žádný, když mám partii otevřenou)
notify-your-turn-daily_digest = Jeden e-mail denně se seznamem mých tahů
notify-your-turn-off = Nikdy
notify-quiet = Klidová doba pro partii, v minutách
notify-digest-hour = Hodina denního e-mailu
notify-time-zone = Časové pásmo
notify-invitations = Někdo mě zve k partii
notify-match-started = Moje partie začíná
notify-match-finished = Moje partie končí
notify-reminders = Připomínky 24 h a 1 h před termínem mého tahu
notify-save = Uložit nastavení
toast-notify-saved = Nastavení upozornění je uloženo.
forgot-title = Zapomněli jste heslo?
forgot-explained = Zadejte své jméno nebo potvrzenou adresu. Má-li účet potvrzenou adresu, pošleme na ni odkaz pro nastavení nového hesla.
forgot-login = Jméno nebo e-mailová adresa
forgot-submit = Poslat odkaz
forgot-sent = Pokud takový účet s potvrzenou adresou existuje, odkaz je na cestě. Funguje jednou, 30 minut.
confirm-email-title = Potvrzení adresy
confirm-email-done = Vaše adresa je potvrzená.
link-failed = Tento odkaz nefungoval: { $reason }
reset-title = Zvolte nové heslo
reset-submit = Nastavit heslo
reset-done = Heslo je nastavené a všechna přihlášení k vašemu účtu skončila.
unsubscribe-title = Odhlásit odběr
unsubscribe-question = Přestat posílat e-maily o: { $topic }?
unsubscribe-topic-your_turn = vašich tazích
unsubscribe-topic-deadline_reminders = termínech
unsubscribe-topic-invitations = pozvánkách
unsubscribe-topic-match_started = začátcích partií
unsubscribe-topic-match_finished = koncích partií
unsubscribe-submit = Odhlásit
unsubscribe-done = Hotovo: tyto e-maily už nedostanete. Znovu je zapnete na stránce svého účtu.

## Vacation

vacation-title = Dovolená
vacation-explained = Během dovolené stojí hodiny všech vašich míst, ostatní hráči se to dozvědí a lobby vás nezařadí do žádného nového zápasu. Vrátit se můžete i dřív.
vacation-none = Nejste na dovolené.
vacation-until = Jste na dovolené do { $until }.
vacation-allowance = Zbývá { $left } z { $total } dní v libovolných 365 dnech.
vacation-days = Dní
vacation-start = Odjet na dovolenou
vacation-end = Jsem zpět
toast-vacation-started = Vaše hodiny stojí, dokud se nevrátíte.
toast-vacation-ended = Vítejte zpět: vaše hodiny zase běží.
