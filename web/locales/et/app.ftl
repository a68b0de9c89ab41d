### Veebiklient: kõik lehtede sõnad peale mängude enda sõnade (games.ftl).

## Lehe raam ja navigeerimine

skip-to-content = Mine sisu juurde
nav-main = Peamenüü
nav-lobby = Mängusaal
nav-clubs = Klubid
nav-tournaments = Turniirid
nav-leaderboards = Edetabelid
nav-your-dashboard = Sinu ülevaade
nav-account = Konto
nav-log-out = Logi välja
nav-log-in = Logi sisse / registreeru
language-menu = Keel
footer-api-docs = API dokumentatsioon
not-found-title = Lehte ei leitud
back-to-lobby = Tagasi mängusaali
loading = Laadin…
toast-signed-out = Oled välja logitud.
toast-done = { $action }: tehtud.
error-unreachable = Server pole kättesaadav.
error-http = HTTP viga { $status }

## Aeg, arvud, tavalised sõnad

count-seconds =
    { $count ->
        [one] { $count } sekund
       *[other] { $count } sekundit
    }
span-s = { $s } s
span-min-s = { $min } min { $s } s
span-h-min = { $h } h { $min } min
span-d-h = { $d } p { $h } h
time-in = { $span } pärast
time-ago = { $span } tagasi
countdown-time-up = aeg on läbi
numbers-caption = Arvud: { $caption }
chart-no-data = andmeid veel pole
value-none = puudub
value-yes = jah
value-no = ei
field-name = Nimi
field-password = Parool

## Olekud

status-waiting = ootab
status-active = käib
status-finished = läbi
status-aborted = katkestatud
visibility-public = avalik
visibility-unlisted = loetlemata
visibility-private = privaatne
presence-absent = eemal
presence-forfeited = loobunud
bot-random = juhuslik
bot-heuristic = kaalutlev

## Kohad laua taga

seat-free = vaba koht
seat-free-short = vaba
seat-n = koht { $seat }
seat-bot = robot ({ $kind })
seat-you = sina
seat-deciding = otsustab
seat-to-move = käigul
seat-bank = varu { $time }
seat-bank-title = Koha ajavaru: see kulub, kuni koht on käigul.
seat-graces = { $n ->
    [one] 1 armuaeg alles
   *[other] { $n } armuaega alles
}
seat-graces-title = Armuajad: kui koha aeg saab otsa, saab ta nii mitu korda lisaaega, enne kui ajaületuse reegel rakendub.
action-give-time = +{ $time }
action-give-time-title = Anna kohale { $seat } rohkem mõtlemisaega
toast-time-given = Koht { $seat } sai { $time } lisaaega.
seat-away = puhkusel kuni { $until }
seat-away-title = Mängija on puhkusel: selle koha kell seisab seni.

## Tabelite veerud

col-rank = Koht
col-seat = Koht laua taga
col-player = Mängija
col-players = Mängijad
col-score = Punktid
col-round = Voor
col-date = Kuupäev
col-game = Mäng
col-games = Mänge
col-rating = Reiting
col-finished = Lõppes
col-points = Punktid

## Nupud

action-join = Liitu
action-leave = Lahku
action-add-bot = Lisa robot
action-start = Alusta
action-cancel = Tühista
action-cancel-match = Tühista mäng
action-result = Tulemus
action-open = Ava
action-watch = Vaata
action-accept = Võta vastu
action-decline = Keeldu
action-refresh = Värskenda
action-log-in-to-join = Logi sisse ja liitu
action-play-again = Mängi uuesti
action-i-am-back = Olen tagasi
action-resign = Loobu
action-change-move = Muuda käiku
action-keep-move = Jäta käik alles
confirm-cancel-match = Kas tühistada see mäng?
confirm-resign = Kas loobud? Sinu koht ei mängi enam ja jääb viimaseks.

## Sisselogimine ja konto

sign-in-title = Sisselogimine
login-title = Logi sisse
login-submit = Logi sisse
register-title = Registreeru
register-name = Nimi (3 kuni 32 tähte, numbrit, _ või -)
register-password = Parool (vähemalt 8 märki)
register-submit = Loo konto
toast-welcome = Tere tulemast, { $name }!
account-title = Konto: { $name }
account-moderation-link = Modereerimine (administraatoritele)
account-member-since = Liige alates { $date }.
password-title = Parooli muutmine
password-current = Praegune parool
password-new = Uus parool
password-revoke-tokens = Tühista ka kõik API tokenid
password-submit = Muuda parooli
toast-password-changed = Parool on muudetud; teised seansid on välja logitud.
delete-title = Konto kustutamine
delete-explained = Sinu kohad käimasolevates mängudes loovutatakse ja ootavatest mängudest lahkud. Mängitud mängud säilitavad sinu käigud anonüümse nime all; sinu nimi jääb reserveerituks. Seda ei saa tagasi võtta.
delete-sure = Soovin oma konto kustutada
delete-submit = Kustuta minu konto
toast-account-deleted = Sinu konto on kustutatud.
mutes-title = Vaigistatud mängijad
mutes-none = Mitte keegi. Mängija saab vaigistada mängu vestluses; siis ei näe sa tema sõnumeid.
mutes-unmute = Tühista vaigistus
tokens-title = API tokenid
tokens-explained = Robotitele ja skriptidele: token tegutseb sinu nimel ilma sinu paroolita.
tokens-scope = Õigus
tokens-scope-play = play (iga päring)
tokens-scope-read = read (ainult GET)
tokens-expires = Kehtib kuni (valikuline)
tokens-submit = Loo token
tokens-copy-now = Kopeeri see kohe, seda näidatakse ainult üks kord:
tokens-none = Tokeneid veel pole.
tokens-col-scopes = Õigused
tokens-col-created = Loodud
tokens-col-last-used = Viimati kasutatud
tokens-col-expires = Kehtib kuni
tokens-never = mitte kunagi
tokens-revoked-at = tühistatud { $at }
tokens-revoke = Tühista
oauth-title = Kas lubad rakendusel { $client } sinu kontot kasutada?
oauth-sign-in-title = Logi sisse, et jätkata rakendusse { $client }
oauth-sign-in-explained = Rakendus soovib sinu nimel tegutseda. Logi sisse siin, selle serveri enda lehel: rakendus ei näe kunagi sinu parooli.
oauth-client-note = Selle nime andis rakendus endale ise ja iga rakendus võib valida mis tahes nime: kontrolli aadressi, kuhu see sind tagasi saadab.
oauth-redirect = See saadab sind tagasi aadressile:
oauth-asks = See soovib:
oauth-scope-read = näha sinu partiisid, käike, kutseid ja profiili
oauth-scope-play = mängida sinu eest: luua partiisid, nendega liituda ja neist lahkuda, käia, alla anda ja kutsetele vastata
oauth-scope-chat = kirjutada sinu nimel sinu partiide vestlusesse ja mängijaid vaigistada
oauth-never = See ei näe ega muuda kunagi sinu parooli, meiliseadeid, veebikonkse ega tokeneid. Juurdepääs kehtib aasta; võta see igal ajal ära oma konto lehel (API tokenid, selle nime all).
oauth-signed-in-as = Sisse logitud kui { $name }.
oauth-allow = Luba
oauth-deny = Keeldu
oauth-leaving = Tagasi rakendusse…
oauth-error-title = Sellele sisselogimispäringule ei saa vastata

## Mängusaal

lobby-filter-game = Filtreeri mängu järgi
lobby-all-games = Kõik mängud
lobby-your-turns = Sinu kord
lobby-log-in = Logi sisse,
lobby-log-in-to-play = et mängida; vaadata võib igaüks.
lobby-nothing-owed = Praegu pole kusagil sinu kord. Mängud ilmuvad siia, kui on sinu käik.
lobby-owed-since = käik ootab { $since }
lobby-bot-stands-in = robot asendab sind
lobby-join-code = Liitumiskood
lobby-join-code-example = nt K7PQ-2MXD-9R
lobby-invitations = Kutsed
lobby-no-invitations = Keegi pole sind mängu kutsunud.
lobby-invites-you = { $name } kutsub sind
lobby-expires = aegub { $when }
lobby-have-join-code = Sul on liitumiskood?
lobby-your-matches = Sinu mängud
lobby-none-in-progress = Ühtegi käimas pole.
lobby-finished-and-stats = Lõppenud mängud ja statistika
lobby-open-matches = Avatud mängud
lobby-no-open = Ükski mäng ei oota mängijaid. Loo uus!
lobby-being-played = Praegu käimas
lobby-nothing-now = Praegu mitte midagi.
create-title = Uus mäng
create-game = Mäng
create-seats = Mängijaid
create-bots = Roboteid
create-bot-kind = Roboti liik
create-who-may-join = Kes võib liituda
create-invite = Kutsu
create-club = Klubi
create-no-club = Klubita
create-visibility-public = Avalik: mängusaalis
create-visibility-unlisted = Loetlemata: kellel on link
create-visibility-private = Privaatne: kutsutud ja liitumiskoodiga
create-invite-placeholder = nimed komadega eraldatult
create-submit = Loo mäng
game-statistics-link = { $game }: statistika

## Mäng

match-seats = Kohad laua taga
match-board = Mängulaud
match-your-move = Sinu käik
match-round = { $round }. voor
match-rated = reitinguga
match-unrated = reitinguta
match-clock-bank = varu { $initial } + { $increment } käigu kohta
match-playing-hours = kellad käivad { $from }–{ $to } ({ $zone })
match-playing-hours-title = Varud kuluvad ainult neil päevatundidel partii ajavööndis; väljaspool neid seisavad kõik kellad.
match-rematch-of = kordusmäng
match-created = loodud { $when }
match-commitment = seemne räsi { $hash }…
match-commitment-title = Seemne SHA-256, avaldatud mängu loomisel: { $hash }. Seeme ise avaldatakse lõpus; kordus kontrollib mõlemat.
live-title = Käigud ilmuvad kohe, kui need tehakse
live-connecting = ühendan…
live-on = otse
live-reconnecting = ühendan uuesti…
waiting-seats = Ootame mängijaid: { $total } kohast { $taken } hõivatud.
waiting-starts-when = Mäng algab, kui kõik kohad on täis või kui looja selle käivitab.
waiting-invite-address = Kutsu teisi selle aadressiga
waiting-join-code = Liitumiskood (sinu jagada)
prompt-your-move = Sinu käik:
prompt-waiting-for = Ootame: { $who } ({ $kind })
prompt-sealed = varjatud käik
prompt-order-sealed = Sinu käsk on pitseeritud. Ootame teisi.
prompt-change-move = Vali uuesti: uus käik asendab pitseeritud käigu, kuni kõik on käinud.
hand-title = Sinu käsi
hand-label = Sinu käsi: { $cards }
result-title = Tulemus
result-aborted = Katkestatud
result-replay = Vaata käik-käigult
result-rated = Reitinguga.
result-unrated = Reitinguta.
rounds-title = Voorud
rounds-none = Ühtegi vooru pole veel lõpetatud.
rounds-about = Mille üle
rounds-outcome = Tulemus
rounds-as = ({ $kind })
rounds-stake = panus { $stake }
rules-title = Mängu { $game } reeglid lühidalt
rules-read-in = Loe keeles:
chat-title = Vestlus
chat-placeholder = Kirjuta midagi…
chat-message = Sõnum
chat-send = Saada
chat-deleted = sõnum kustutatud
chat-delete = kustuta
chat-delete-label = Kustuta see sõnum
chat-mute = vaigista
chat-mute-label = Vaigista { $name }
toast-muted = { $name } on vaigistatud; vaigistuse saab tühistada konto lehel.
chat-none = Sõnumeid veel pole.
chat-players-only = Siia kirjutavad ainult mängijad.
chat-log-in = Kirjutamiseks logi sisse.

## Käigu juhtnupud

controls-choose = vali…
controls-choose-field = Vali: { $field }.
controls-not-legal = Selline kombinatsioon pole lubatud käik.
controls-range = { $field } ({ $min }–{ $max })
controls-subset =
    { $field }: { $min ->
        [0] kuni { $max }
       *[other] { $min } kuni { $max }
    }, järjekorras
controls-subset-pick = Vali { $min } kuni { $max }: { $field }.

## Kordus ja ausus

replay-title = Kordus: { $game }
replay-match-page = mängu leht
replay-first = Algusesse (Home)
replay-previous = Eelmine käik (←)
replay-next = Järgmine käik (→)
replay-last = Lõppu (End)
replay-move = Käik
replay-moves = Käigud
replay-position = Käik { $at }/{ $total }
replay-step = samm { $step }
replay-setup = Mäng pärast ettevalmistust, enne esimest käiku.
replay-rounds-done = Lõpetatud { $done } vooru { $total }-st
replay-gains = seni võidetud { $gains }
replay-chart = Võidud vooruti, kokku liidetud
replay-round = { $round }. voor
replay-round-short = V{ $round }
replay-numbers = punktid vooruti
replay-final-position = Lõppseis
replay-position-at = Seis etapil { $step }
fair-title = Ausus
fair-committed = Mängu loomisel avaldatud (seemne SHA-256):
fair-revealed = Lõpus avaldatud seeme:
fair-not-yet = veel mitte
fair-no-subtle = See brauser arvutab SHA-256 ainult https-lehtedel; kontrolli seemet skriptiga docs/verify-fairness.py.
fair-computed = Seemne SHA-256, arvutatud sinu brauseris:
fair-ok = Seeme vastab avaldatud räsile: jagamised olid paigas enne esimest käiku.
fair-bad = Seeme EI vasta avaldatud räsile.
fair-explained = Iga segamise ja tõmbamise saab seemnest uuesti arvutada: vaata hoidla faili docs/fairness.md. Server oskab ka kogu salvestise oma reeglitega uuesti läbi mängida:
fair-server-button = Mängi serveris uuesti läbi
fair-server-ok = Läbi mängitud: kõik käigud lubatud, voorud ja tulemus samad, andmed ja seeme klapivad.

## Ülevaated

player-rating-history = Reitingu ajalugu
player-rating-explained = Ettevaatlik reiting (μ − 3σ, Weng-Lin) pärast iga reitinguga mängu.
player-rating-chart = Mängija { $name } reitingu ajalugu
player-rating-numbers = reiting pärast iga reitinguga mängu
player-rating-now = Praegu:
player-rating-current =
    { $game } { $rating } ({ $games } mängust { $wins ->
        [one] { $wins } võit
       *[other] { $wins } võitu
    })
player-figures-label = { $game }: arvud
player-none-finished = Mängitud { $played }, lõpetatud veel mitte ühtegi.
player-best-round = Parim voor: +{ $delta } { $round }. voorus –
player-this-match = vaata mängu
player-recent-results = Viimased tulemused
player-result-link = tulemus
player-replay-link = kordus
player-no-finished = Lõppenud mänge veel pole.
player-bot = robot
player-since = Mängib alates { $date }.
player-reliability = Usaldusväärsus
player-reliability-explained = Peetud tähtajad kõigi tähtaegade kohta kellaga mängudes viimase { $days } päeva jooksul. Aja täis saamine on pidamata tähtaeg.
player-reliability-summary = Peetud tähtaegu: { $met } / { $owed } ({ $ratio })
player-reliability-none = Viimase { $days } päeva jooksul pole ühtegi tähtaega.
player-reliability-game = { $game }: { $met } / { $owed } ({ $ratio })
fig-played = mängitud
fig-finished = lõpetatud
fig-won = võidetud
fig-win-rate = võiduprotsent
fig-average-rank = keskmine koht
fig-average-score = keskmised punktid
fig-rating = reiting
fig-finished-matches = lõppenud mängu
fig-rounds = vooru
stats-window = Ajavahemik
stats-all-time = kogu aeg
stats-last-days =
    { $days ->
        [one] viimane päev
       *[other] viimased { $days } päeva
    }
stats-from-to = alates … kuni …
stats-any = ükskõik
stats-since = Alates
stats-until = Kuni
stats-outcome-shares = Tulemuste osakaalud
stats-outcome-chart = Voorude osakaal tulemuse järgi
stats-no-rounds = Selles ajavahemikus voore pole.
stats-outcomes = tulemused
stats-share = Osakaal
stats-by-value = Väärtuse järgi
stats-by-value-chart = Tulemuste osakaal väärtuse järgi
stats-value = Väärtus
stats-seat-position = Koht laua taga
stats-seat-position-explained = Võiduprotsent selle järgi, mitu kohta esimese vooru alustajast edasi mängija istub: kas esimesena käimine aitab?
stats-seat-position-chart = Võiduprotsent koha järgi laua taga
stats-position = positsioon { $position }
stats-position-col = Koht
stats-seat-positions = kohad laua taga
stats-seats = Kohti
stats-wins = Võite
stats-no-data = Andmeid pole.
stats-roles = Rollid
stats-roles-chart = Võiduprotsent rolli järgi
stats-role = Roll
stats-by-kind = Liigi järgi
stats-plays-by-kind = Käigud liigi järgi
stats-no-plays = Käike pole salvestatud.
stats-matches = Mängud
stats-matches-chart = Mängud mängijate arvu ja variandi järgi
stats-players-variant = { $players } m · { $variant }
stats-variant = Variant
stats-key = Mis
stats-plays = Käike
stats-successes = Õnnestumisi
stats-success-rate = Õnnestumise protsent
stats-success-rate-of = { $title }: õnnestumise protsent
stats-avg-stake = Kesk. panus
stats-avg-payoff = Kesk. võit
leaderboard-link = Edetabel
leaderboard-games = Mängud
leaderboard-top-ten = Parim kümme reitingu järgi (μ − 3σ)
leaderboard-chart = Kõrgeimad reitingud
leaderboard-none = Ühtegi reitinguga mängu pole veel lõpetatud.

## Klubid

clubs-search = Otsi
clubs-search-placeholder = Nimi algab…
clubs-none = Klubisid veel pole.
clubs-members-count =
    { $count ->
        [one] { $count } liige
       *[other] { $count } liiget
    }
clubs-found-title = Asuta klubi
clubs-found-submit = Asuta klubi
clubs-description = Kirjeldus
club-policy-open = Avatud: liituda võib igaüks
club-policy-request = Soovi peale: administraator võtab vastu
club-policy-invitation = Ainult kutsega
club-role-owner = omanik
club-role-admin = administraator
club-role-member = liige
club-role-requested = soovib liituda
club-role-invited = kutsutud
club-owner = omanik
club-since = alates { $date }
toast-club-member = Oled liige.
toast-club-requested = Sinu soov on saadetud.
club-ask-to-join = Soovi liituda
club-accept-invitation = Võta kutse vastu
club-new-match = Uus klubimäng
club-withdraw-request = Võta soov tagasi
club-members = Liikmed
club-remove = Eemalda
club-invite = Kutsu
club-invite-player = Kutsu mängija
toast-club-invited = { $name } on kutsutud.
club-requests-title = Soovid ja kutsed
club-asked = soovis { $date }
club-no-requests = Ootel soove pole.
club-invited = Kutsutud:
club-no-matches = Klubimänge veel pole.
club-board-none = Selle mängu lõppenud klubimänge veel pole.

## Turniirid

tournaments-none = Turniire veel pole.
tournaments-entrants = { $entrants }/{ $max }
tournament-format-swiss = Šveitsi süsteem
tournament-format-round_robin = Ringturniir
tournament-status-registering = registreerimine
tournament-status-running = käib
tournament-status-finished = läbi
tournament-status-cancelled = tühistatud
tournament-new = Uus turniir
tournament-format = Süsteem
tournament-table-size = Mängijaid laua taga
tournament-rounds = Voore (Šveitsi süsteem)
tournament-rounds-automatic = automaatselt
tournament-max = Kõige rohkem osalejaid
tournament-create-submit = Loo turniir
tournament-nobody = Keegi pole veel registreerunud.
tournament-byes = Vabavoorud
tournament-withdrawn = loobunud
tournament-no-round = Ükski voor pole veel alanud.
tournament-table = Laud { $table }
tournament-in-play = käib
tournament-bye = Vabavoor: { $names }
tournament-tables-of = lauad { $size } mängijale
tournament-round-of = { $round }. voor { $rounds }-st
tournament-starts = algab { $date }
tournament-enter = Registreeru
tournament-withdraw = Loobu
tournament-add-bots = Lisa roboteid
tournament-start-now = Alusta kohe
tournament-standings = Seis
tournament-ties = Viigi korral otsustab Buchholz (vastaste punktid), siis Sonneborn-Berger, siis võidud, siis registreerumise järjekord.

## Modereerimine

admin-title = Modereerimine
admin-audit-log = Toimingute logi
admin-when = Millal
admin-who = Kes
admin-action = Toiming
admin-target = Keda või mida
admin-reason = Põhjus
admin-nothing = Veel mitte midagi.
admin-reason-placeholder = valikuline, jääb logisse
admin-match-id = mängu id
admin-match = Mäng
admin-disable = Blokeeri
admin-enable = Eemalda blokeering
admin-grant = Anna administraatori roll
admin-revoke = Võta administraatori roll
admin-cancel-match = Tühista mäng

## Post: konto lehe kaart, sisselogimislehe parooli lähtestamise vorm ja
## lehed, mida kirjades olevad lingid avavad.

notify-title = Teavitused e-postiga
notify-mail-off = See server ei saada kirju: postiserverit pole seadistatud.
notify-address = E-posti aadress
notify-address-none = Aadressi veel pole: sulle ei saadeta midagi ja unustatud parooli ei saa lähtestada.
notify-address-unconfirmed = { $address }: veel kinnitamata. Ava sellele saadetud link.
notify-address-confirmed = { $address }: kinnitatud. Keegi teine seda ei näe.
notify-address-save = Salvesta aadress
notify-address-remove = Eemalda aadress
notify-address-sent = Kinnituslink on teel aadressile { $address }.
notify-your-turn = Kui on minu käik
notify-your-turn-immediately = Kirjuta kohe (mängu kohta ülimalt üks kiri vaikeaja jooksul, mitte ühtegi, kui mäng on mul lahti)
notify-your-turn-daily_digest = Üks kiri päevas minu käikude loeteluga
notify-your-turn-off = Mitte kunagi
notify-quiet = Mängu vaikeaeg minutites
notify-digest-hour = Päevase kirja tund
notify-time-zone = Ajavöönd
notify-invitations = Keegi kutsub mind mängu
notify-match-started = Minu mäng algab
notify-match-finished = Minu mäng lõpeb
notify-reminders = Meeldetuletused 24 h ja 1 h enne minu käigu tähtaega
notify-save = Salvesta seaded
toast-notify-saved = Teavitusseaded on salvestatud.
forgot-title = Unustasid parooli?
forgot-explained = Sisesta oma nimi või kinnitatud aadress. Kui kontol on kinnitatud aadress, saadetakse sinna link uue parooli seadmiseks.
forgot-login = Nimi või e-posti aadress
forgot-submit = Saada mulle link
forgot-sent = Kui selline kinnitatud aadressiga konto on olemas, on link teel. See töötab üks kord, 30 minutit.
confirm-email-title = Aadressi kinnitamine
confirm-email-done = Sinu aadress on kinnitatud.
link-failed = See link ei töötanud: { $reason }
reset-title = Vali uus parool
reset-submit = Sea parool
reset-done = Parool on seatud ja kõik sinu konto seansid on lõppenud.
unsubscribe-title = Loobu kirjadest
unsubscribe-question = Kas lõpetada kirjad teemal: { $topic }?
unsubscribe-topic-your_turn = sinu käigud
unsubscribe-topic-deadline_reminders = tähtajad
unsubscribe-topic-invitations = kutsed
unsubscribe-topic-match_started = mängude algus
unsubscribe-topic-match_finished = mängude lõpp
unsubscribe-submit = Loobu
unsubscribe-done = Valmis: neid kirju sa enam ei saa. Saad need oma konto lehel uuesti sisse lülitada.

## Vacation

vacation-title = Puhkus
vacation-explained = Puhkuse ajal seisavad kõigi sinu kohtade kellad, teised mängijad saavad sellest teada ja fuajee ei pane sind ühtegi uude mängu. Võid ka varem tagasi tulla.
vacation-none = Sa ei ole puhkusel.
vacation-until = Oled puhkusel kuni { $until }.
vacation-allowance = Alles { $left } päeva { $total }-st mis tahes 365 päeva jooksul.
vacation-days = Päevi
vacation-start = Lähen puhkusele
vacation-end = Olen tagasi
toast-vacation-started = Sinu kellad seisavad, kuni oled tagasi.
toast-vacation-ended = Tere tulemast tagasi: sinu kellad käivad jälle.
