### Problémy (application/problem+json): `title` podle stavového kódu HTTP,
### `detail` podle kódu problému. Kódy a typy se nepřekládají.

## Titulky podle stavu.

problem-title-400 = Chybný požadavek
problem-title-401 = Nepřihlášeno
problem-title-403 = Zakázáno
problem-title-404 = Nenalezeno
problem-title-405 = Nepovolená metoda
problem-title-409 = Konflikt
problem-title-410 = Už neplatí
problem-title-413 = Příliš velký požadavek
problem-title-415 = Nepodporovaný formát
problem-title-422 = Nezpracovatelný požadavek
problem-title-429 = Příliš mnoho požadavků
problem-title-500 = Chyba serveru
problem-title-503 = Služba nedostupná

## Podrobnosti podle kódu.

problem-account_disabled = Tento účet zablokoval správce.
problem-already_entered = Do tohoto turnaje už jste přihlášeni.
problem-already_member = Členství v tomto klubu už trvá.
problem-already_moved =
    { $reason ->
        [timed_out] Za vaše místo už v tomto kroku táhl bot, protože vám vypršel čas.
        [shows_other] Nový tah musí ukazovat totéž, co ostatní už vidí z vašeho skrytého tahu; tento ukazuje něco jiného.
       *[different] V tomto kroku už jste táhli, a to jinak (vyměnit lze jen skrytý tah, a to jen do jeho odhalení).
    }
problem-already_requested = Vaše žádost o členství čeká na odpověď správce.
problem-already_seated = { $player } už v tomto zápase má místo.
problem-already_withdrawn = Z tohoto turnaje už jste odstoupili.
problem-bundle_too_large = Záznam může mít nejvýše { $max } { $max ->
        [one] tah
        [few] tahy
       *[other] tahů
    }.
problem-busy = Server je právě přetížený; zkuste to za chvíli znovu.
problem-cannot_mute_yourself = Sami sebe umlčet nemůžete.
problem-chat_message_not_found = Taková zpráva v tomto zápase není.
problem-chat_off = Tento zápas nemá chat.
problem-chat_players_only = Do chatu zápasu píšou jen jeho hráči.
problem-club_name_taken = Klub s tímto názvem už existuje.
problem-club_not_found = Klub s tímto id neexistuje.
problem-database_unavailable = Část databáze, která tato data drží, je nedostupná; zkuste to za chvíli znovu.
problem-duplicate_authorization = Požadavek má víc než jednu hlavičku Authorization; pošlete jen jednu.
problem-game_not_found = Hra s tímto id neexistuje.
problem-idempotency_key_reused = Tento Idempotency-Key už byl použit pro jiný tah.
problem-illegal_move = Tento tah porušuje pravidla hry: { $rule }
problem-insufficient_scope = Tomuto API tokenu chybí oprávnění `{ $scope }`, které tento požadavek potřebuje.
problem-internal = vnitřní chyba
problem-invalid_action = Akce není platná: { $reason }
problem-invalid_body = Tělo požadavku nemá očekávaná pole: { $reason }
problem-invalid_characters = { $part } obsahuje řídicí znak (např. NUL); žádný text požadavku ho obsahovat nesmí.
problem-invalid_chat = chat je "players", "everyone" nebo "off".
problem-invalid_chat_message = Zpráva má 1 až { $max } { $max ->
        [one] znak
        [few] znaky
       *[other] znaků
    } (mezery okolo se nepočítají) a žádné řídicí znaky.
problem-invalid_club_name = Název klubu má 3 až 48 znaků: písmena, číslice, jednotlivé mezery a _ - . ' &.
problem-invalid_count = count je od 1 do { $max }.
problem-invalid_credentials = Jméno nebo heslo je špatně.
problem-invalid_cursor = Tento kurzor nevydal tento server.
problem-invalid_description = Popis má nejvýše 1000 znaků a kromě zalomení řádků žádné řídicí znaky.
problem-invalid_email = Tohle není e-mailová adresa, na kterou by server mohl psát (například jmeno@example.org).
problem-invalid_events = events uvádí druhy událostí, podle kterých webhook umí filtrovat: "*" nebo některé z { $kinds }.
problem-invalid_expiry =
    { $field ->
        [expires_at] expires_at musí být v budoucnosti.
       *[invitation_expires_in] invitation_expires_in je { $min } až { $max } sekund.
    }
problem-invalid_format = format je "round_robin" nebo "swiss".
problem-invalid_idempotency_key = Idempotency-Key má 1 až 255 viditelných znaků ASCII.
problem-invalid_include = include přijímá jen `positions`.
problem-invalid_invite = Pozvat lze nejvýše { $max } { $max ->
        [one] hráče
        [few] hráče
       *[other] hráčů
    }, každého jednou a ne sebe.
problem-invalid_join_code = Kód pro připojení má { $length } písmen a číslic, tak jak ho dostal zakladatel zápasu.
problem-invalid_join_policy = join_policy je "open", "request" nebo "invitation".
problem-invalid_last_event_id = Last-Event-ID není pozice, kterou tento proud vydal.
problem-invalid_limit = limit musí být mezi 1 a { $max }.
problem-invalid_locale = locale je jedno z { $locales }, nebo null.
problem-invalid_mail_token = Tento odkaz neplatí: už byl použit, vypršel, nebo byl poslán novější.
problem-invalid_max_players = max_players je od { $min } do { $max }.
problem-invalid_name =
    { $what ->
        [tournament] Název turnaje má 1 až 80 znaků.
       *[player] Jméno má 3 až 32 znaků: písmena, číslice, „_“ a „-“.
    }
problem-invalid_notification_settings = Nastavení upozornění je mimo rozsah: quiet_minutes 0 až 1440, digest_hour 0 až 23.
problem-invalid_options = Nastavení není platné: { $reason }
problem-invalid_path = Část cesty není platná: { $reason }
problem-invalid_position = Pozice není platná: { $reason }
problem-invalid_query = Dotaz v adrese není platný: { $reason }
problem-invalid_reason = Důvod má nejvýše 500 znaků.
problem-invalid_role = role je "owner", "admin" nebo "member".
problem-invalid_round_interval = round_interval je od { $min } do { $max } sekund.
problem-invalid_rounds = Švýcarský turnaj má 1 až { $max } kol; každý s každým tolik kol, kolik je potřeba, aby se potkali všichni.
problem-invalid_scopes = Token potřebuje aspoň jedno oprávnění: play, read, chat.
problem-invalid_authorization_request = Žádost o autorizaci není platná; aplikace se důvod dozví na své adrese redirect_uri.
problem-invalid_client_id = client_id je název aplikace: 1 až 64 znaků, žádný z nich řídicí.
problem-invalid_redirect_uri = redirect_uri musí být https, http na localhost nebo 127.0.0.1, nebo vlastní schéma aplikace (com.example.app:/callback), bez fragmentu.
problem-invalid_seat = Tento zápas má místa 0 až { $max }.
problem-invalid_seats = { $game } se hraje v { $seats } hráčích, včetně botů a vás.
problem-invalid_starts_at = starts_at musí být v budoucnosti.
problem-invalid_status = status je jeden z { $statuses }.
problem-invalid_table_size = Každý s každým se hraje ve dvojicích: table_size je 2.
problem-invalid_ticket = Vstupenka k proudu událostí je neznámá, použitá, prošlá nebo už k přihlášení nepatří.
problem-invalid_time_zone = time_zone je název časového pásma IANA, například Europe/Prague nebo UTC.
problem-invalid_token =
    { $reason ->
        [header] Hlavička Authorization nemá tvar `Bearer <token>`.
        [expired] Platnost tokenu vypršela.
        [revoked] API token byl zrušen.
        [unknown_player] Přístupový token patří hráči, který neexistuje.
       *[invalid] Přístupový token není platný nebo vypršel.
    }
problem-invalid_token_name = Název tokenu má 1 až 64 znaků, žádný z nich řídicí.
problem-invalid_visibility = visibility je "public", "unlisted" nebo "private".
problem-invalid_wait = wait je 1 až { $max } sekund a patří k after_version.
problem-invalid_webhook_url = Na tuto adresu webhooku server neposílá: { $reason }
problem-invitation_answered = Na tuto pozvánku už jste odpověděli ({ $status }).
problem-invitation_declined = Tuto pozvánku jste odmítli; o kód pro připojení požádejte zakladatele zápasu.
problem-invitation_expired = Vaše pozvánka vypršela { $expires_at }.
problem-invitation_not_found = Do tohoto zápasu nemáte pozvánku.
problem-invitation_required = Do tohoto klubu se vstupuje jen na pozvání.
problem-join_code_not_found = Žádný zápas čekající na hráče tento kód nemá.
problem-malformed_json = Tělo požadavku není platný JSON: { $reason }
problem-match_full = Všechna místa jsou obsazená.
problem-match_not_active =
    { $status ->
        [waiting] Tento zápas ještě nezačal; tahy zatím nepřijímá.
        [finished] Tento zápas už skončil; tahy nepřijímá.
        [aborted] Tento zápas byl zrušen; tahy nepřijímá.
       *[other] Tento zápas je ve stavu { $status }; tahy nepřijímá.
    }
problem-match_not_finished = Odvetu lze nabídnout, až zápas skončí.
problem-match_not_found = Zápas s tímto id neexistuje.
problem-match_not_waiting = Tento zápas už na hráče nečeká: přisednout nebo odejít lze jen před jeho začátkem.
problem-match_over = Zápas už skončil.
problem-member_not_found = Tento hráč v klubu nemá žádné místo (není člen, nežádal ani nebyl pozván).
problem-method_not_allowed = Tento zdroj povoluje jen: { $allow }.
problem-name_taken = Toto jméno už je obsazené.
problem-not_admin = To smí jen správce.
problem-not_chat_moderator = Zprávu smaže jen její autor, zakladatel zápasu a správci serveru.
problem-not_club_admin = To smí jen majitel a správci klubu.
problem-not_club_member = Zápasů klubu se účastní jen jeho členové.
problem-not_club_owner = Role přiděluje jen majitel klubu.
problem-not_enough_players = Na začátek je málo hráčů: sedí { $seated }, potřeba je { $needed }.
problem-not_entered = Do tohoto turnaje nejste přihlášeni.
problem-not_found = Na adrese { $path } nic není.
problem-not_owner = To smí jen zakladatel.
problem-not_seated = V tomto zápase nemáte místo.
problem-not_your_turn = Nejste na tahu: zápas čeká na místa { $awaiting }.
problem-own_account = Správce nemůže zablokovat vlastní účet.
problem-own_admin_role = Správce si nemůže odebrat vlastní roli; může to jiný správce (nebo příkazová řádka).
problem-own_role = Majitel předá klub tím, že udělá majitelem jiného člena.
problem-owner_must_hand_over = Majitel může odejít, až udělá majitelem jiného člena (PUT …/members/{"{"}name{"}"}/role).
problem-password_changed_concurrently = Heslo mezitím změnil jiný požadavek; přihlaste se znovu.
problem-password_session_required = K tomu je potřeba token z POST /api/v1/auth/token (jméno a heslo), ne API token.
problem-payload_too_large = Tělo požadavku je příliš velké.
problem-player_not_found = Hráč s tímto jménem neexistuje.
problem-position_not_found =
    { $reason ->
        [not_started] Tento zápas ještě nezačal, nemá tedy žádné pozice.
       *[beyond] Tento zápas nemá pozici { $step }: jeho pozice jsou 0 až { $last }.
    }
problem-rate_limited = Příliš mnoho požadavků z této adresy nebo účtu ({ $limit } za minutu); zkuste to znovu za { $wait } s.
problem-reliability_too_low = Tento zápas vyžaduje spolehlivost alespoň { $minimum }; vaše je { $ratio } (dodrženo { $met } z { $owed } termínů).
problem-request_not_found = Tento hráč nemá žádnou čekající žádost o členství.
problem-seat_forfeited = Vaše místo v tomto zápase propadlo; další tahy od vás nepřijímá.
problem-seat_taken = Místo { $seat } je obsazené.
problem-spectators_not_allowed = Tento zápas se hraje bez diváků; prohlédnout si ho lze, až skončí.
problem-stale_step = Zápas je už v kroku { $current_step }, ne { $step }.
problem-token_not_found = API token s tímto id nemáte.
problem-too_many_clubs = Klubů smí jeden účet vlastnit nejvýše { $max }; nejdřív některý předejte jinému členovi.
problem-too_many_confirmations = Za poslední hodinu odešlo několik potvrzovacích e-mailů; zkuste to později.
problem-too_many_invitations = Pozvánek čekajících na odpověď smí mít jeden účet nejvýše { $max }; nejdřív některé zrušte nebo počkejte na odpovědi.
problem-too_many_tokens = Hráč může mít nejvýše { $max } platných tokenů; nejdřív některý zrušte.
problem-too_many_tournaments = Vlastních turnajů, které přijímají přihlášky nebo právě běží, smí mít jeden účet nejvýše { $max }; nejdřív některý zrušte nebo počkejte, až skončí.
problem-too_many_waiting_matches = Zápasů čekajících na hráče smí jeden účet vlastnit nejvýše { $max }; nejdřív některý ze svých zápasů spusťte nebo zrušte.
problem-too_many_webhooks = Hráč může mít nejvýše { $max } webhooků; nejdřív některý smažte.
problem-tournament_full = Tento turnaj přijímá { $max } { $max ->
        [one] účastníka
        [few] účastníky
       *[other] účastníků
    }.
problem-tournament_not_found = Turnaj s tímto id neexistuje.
problem-tournament_over = Tento turnaj skončil.
problem-tournament_started = Do tohoto turnaje se už nelze přihlásit: začal nebo skončil.
problem-unauthorized = Tento požadavek potřebuje přístupový token: Authorization: Bearer <token>.
problem-unknown_bot = Bot { $bot } pro tuto hru neexistuje; její boti jsou: { $bots }.
problem-unknown_game = Hra { $game } neexistuje; hry jsou: { $games }.
problem-unknown_invitee = Hráč { $name } neexistuje, nelze ho pozvat.
problem-unsubscribe_link_invalid = Tento odkaz pro odhlášení neplatí.
problem-unsupported_media_type = Tělo požadavku musí být JSON (Content-Type: application/json).
problem-weak_password = Heslo má aspoň 8 znaků (a nejvýše 1024 bajtů).
problem-webhook_not_found = Webhook s tímto id nemáte.
problem-wrong_password = Heslo je špatně.

problem-invalid_extension = Prodloužení se dává místu v zápase, na 1 sekundu až týden.
problem-own_seat = Místo si nemůže přidat čas samo; může mu ho dát jiné místo v zápase.
problem-seat_not_awaited = To místo teď nedluží žádný vlastní tah: čas se dává místu, které přemýšlí.
problem-no_clock = Tento zápas nemá hodiny: není žádný čas, který by šlo dát.
problem-on_vacation = Jste na dovolené do { $until }: nejdřív se vraťte.
problem-not_on_vacation = Nejste na dovolené.
problem-vacations_off = Tento server dovolené neposkytuje.
problem-invalid_vacation = Dovolená je celý počet dní, od 1 do { $days_left }, které vám zbývají.
