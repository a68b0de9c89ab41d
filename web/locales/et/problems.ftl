### Probleemid (application/problem+json): `title` HTTP olekukoodi järgi,
### `detail` probleemi koodi järgi. Koode ja tüüpe ei tõlgita.

## Pealkirjad oleku järgi.

problem-title-400 = Vigane päring
problem-title-401 = Autentimata
problem-title-403 = Keelatud
problem-title-404 = Ei leitud
problem-title-405 = Meetod pole lubatud
problem-title-409 = Konflikt
problem-title-410 = Enam ei kehti
problem-title-413 = Päring on liiga suur
problem-title-415 = Toetamata vorming
problem-title-422 = Töötlemata päring
problem-title-429 = Liiga palju päringuid
problem-title-500 = Serveri viga
problem-title-503 = Teenus pole saadaval

## Üksikasjad koodi järgi.

problem-account_disabled = Administraator on selle konto blokeerinud.
problem-already_entered = Oled sellesse turniiri juba registreerunud.
problem-already_member = Oled selle klubi liige juba.
problem-already_moved =
    { $reason ->
        [timed_out] Sinu koha käigu selles etapis tegi juba robot, sest sinu aeg sai otsa.
        [shows_other] Uus käik peab näitama sedasama, mida teised sinu varjatud käigust juba näevad; see näitab midagi muud.
       *[different] Oled selles etapis juba käinud, ja teisiti (asendada saab ainult varjatud käiku ja ainult enne selle avamist).
    }
problem-already_requested = Sinu liitumissoov ootab administraatori vastust.
problem-already_seated = { $player } istub selles mängus juba.
problem-already_withdrawn = Oled sellest turniirist juba loobunud.
problem-bundle_too_large = Salvestis mahutab kõige rohkem { $max } { $max ->
        [one] käigu
       *[other] käiku
    }.
problem-busy = Server on praegu hõivatud; proovi varsti uuesti.
problem-cannot_mute_yourself = Iseennast vaigistada ei saa.
problem-chat_message_not_found = Selles mängus sellist sõnumit pole.
problem-chat_off = Sellel mängul pole vestlust.
problem-chat_players_only = Mängu vestlusesse kirjutavad ainult selle mängijad.
problem-club_name_taken = Sellise nimega klubi on juba olemas.
problem-club_not_found = Selle id-ga klubi pole.
problem-database_unavailable = Andmebaasi osa, kus need andmed asuvad, pole kättesaadav; proovi varsti uuesti.
problem-duplicate_authorization = Päringul on rohkem kui üks Authorization päis; saada ainult üks.
problem-game_not_found = Selle id-ga mängu pole.
problem-idempotency_key_reused = Seda Idempotency-Key väärtust on juba kasutatud teise käigu jaoks.
problem-illegal_move = See käik rikub mängureegleid: { $rule }
problem-insufficient_scope = Sellel API tokenil puudub õigus `{ $scope }`, mida see päring vajab.
problem-internal = sisemine viga
problem-invalid_action = Tegevus pole kehtiv: { $reason }
problem-invalid_body = Päringu sisul pole oodatud välju: { $reason }
problem-invalid_characters = { $part } sisaldab juhtmärki (näiteks NUL); ükski päringu tekst ei tohi seda sisaldada.
problem-invalid_chat = chat on "players", "everyone" või "off".
problem-invalid_chat_message = Sõnumis on 1 kuni { $max } märki (ümbritsevaid tühikuid ei loeta) ja mitte ühtegi juhtmärki.
problem-invalid_club_name = Klubi nimes on 3 kuni 48 märki: tähed, numbrid, üksikud tühikud ja _ - . ' &.
problem-invalid_count = count on vahemikus 1 kuni { $max }.
problem-invalid_credentials = Nimi või parool on vale.
problem-invalid_cursor = Seda kursorit pole andnud see server.
problem-invalid_description = Kirjelduses on kõige rohkem 1000 märki ja reavahetuste kõrval mitte ühtegi juhtmärki.
problem-invalid_email = See pole e-posti aadress, kuhu server saaks kirjutada (näiteks nimi@example.org).
problem-invalid_events = events loetleb sündmuste liike, mille järgi veebikonks saab filtreerida: "*" või mõned neist: { $kinds }.
problem-invalid_expiry =
    { $field ->
        [expires_at] expires_at peab olema tulevikus.
       *[invitation_expires_in] invitation_expires_in on { $min } kuni { $max } sekundit.
    }
problem-invalid_format = format on "round_robin" või "swiss".
problem-invalid_idempotency_key = Idempotency-Key koosneb 1 kuni 255 nähtavast ASCII-märgist.
problem-invalid_include = include lubab ainult väärtust `positions`.
problem-invalid_invite = Kutsuda saab kõige rohkem { $max } { $max ->
        [one] mängija
       *[other] mängijat
    }, igaüht korra ja mitte iseennast.
problem-invalid_join_code = Liitumiskoodis on { $length } tähte ja numbrit, nii nagu mängu looja selle sai.
problem-invalid_join_policy = join_policy on "open", "request" või "invitation".
problem-invalid_last_event_id = Last-Event-ID pole asukoht, mille see voog andis.
problem-invalid_limit = limit peab olema vahemikus 1 kuni { $max }.
problem-invalid_locale = locale on üks neist: { $locales } või null.
problem-invalid_mail_token = See link ei kehti: seda on juba kasutatud, see on aegunud või on saadetud uuem.
problem-invalid_max_players = max_players on vahemikus { $min } kuni { $max }.
problem-invalid_name =
    { $what ->
        [tournament] Turniiri nimes on 1 kuni 80 märki.
       *[player] Nimes on 3 kuni 32 märki: tähed, numbrid, „_“ ja „-“.
    }
problem-invalid_notification_settings = Teavitusseade on lubatud vahemikust väljas: quiet_minutes 0 kuni 1440, digest_hour 0 kuni 23.
problem-invalid_options = Valikud pole kehtivad: { $reason }
problem-invalid_path = Aadressi osa pole kehtiv: { $reason }
problem-invalid_position = Seis pole kehtiv: { $reason }
problem-invalid_query = Aadressi päring pole kehtiv: { $reason }
problem-invalid_reason = Põhjuses on kõige rohkem 500 märki.
problem-invalid_role = role on "owner", "admin" või "member".
problem-invalid_round_interval = round_interval on vahemikus { $min } kuni { $max } sekundit.
problem-invalid_rounds = Šveitsi süsteemis turniiril on 1 kuni { $max } vooru; ringturniiril nii palju, et igaüks kohtuks igaühega.
problem-invalid_scopes = Tokenil peab olema vähemalt üks õigus: play, read, chat.
problem-invalid_authorization_request = Autoriseerimispäring ei kehti; rakendus saab põhjuse teada oma redirect_uri aadressil.
problem-invalid_client_id = client_id on rakenduse nimi: 1 kuni 64 märki, mitte ükski neist juhtmärk.
problem-invalid_redirect_uri = redirect_uri peab olema https, http aadressil localhost või 127.0.0.1 või rakenduse oma skeem (com.example.app:/callback), ilma fragmendita.
problem-invalid_seat = Selles mängus on kohad 0 kuni { $max }.
problem-invalid_seats = { $game } mängitakse { $seats } mängijaga, robotid ja sina kaasa arvatud.
problem-invalid_starts_at = starts_at peab olema tulevikus.
problem-invalid_status = status on üks neist: { $statuses }.
problem-invalid_table_size = Ringturniiri mängitakse paaris: table_size on 2.
problem-invalid_ticket = Sündmuste voo pilet on tundmatu, kasutatud, aegunud või ei kuulu enam sisselogimise juurde.
problem-invalid_time_zone = time_zone on IANA ajavööndi nimi, näiteks Europe/Tallinn või UTC.
problem-invalid_token =
    { $reason ->
        [header] Authorization päis pole kujul `Bearer <token>`.
        [expired] Token on aegunud.
        [revoked] API token on tühistatud.
        [unknown_player] Juurdepääsutoken kuulub mängijale, keda pole olemas.
       *[invalid] Juurdepääsutoken pole kehtiv või on aegunud.
    }
problem-invalid_token_name = Tokeni nimes on 1 kuni 64 märki, mitte ükski neist juhtmärk.
problem-invalid_visibility = visibility on "public", "unlisted" või "private".
problem-invalid_wait = wait on 1 kuni { $max } sekundit ja käib koos after_version väärtusega.
problem-invalid_webhook_url = Sellele veebikonksu aadressile server ei postita: { $reason }
problem-invitation_answered = Oled sellele kutsele juba vastanud ({ $status }).
problem-invitation_declined = Sa keeldusid sellest kutsest; küsi liitumiskoodi mängu loojalt.
problem-invitation_expired = Sinu kutse aegus { $expires_at }.
problem-invitation_not_found = Sul pole sellesse mängu kutset.
problem-invitation_required = Sellesse klubisse saab ainult kutsega.
problem-join_code_not_found = Ühelgi mängijaid ootaval mängul pole sellist liitumiskoodi.
problem-malformed_json = Päringu sisu pole kehtiv JSON: { $reason }
problem-match_full = Kõik kohad on täis.
problem-match_not_active =
    { $status ->
        [waiting] See mäng pole veel alanud; käike see veel vastu ei võta.
        [finished] See mäng on läbi; käike see vastu ei võta.
        [aborted] See mäng on katkestatud; käike see vastu ei võta.
       *[other] Selle mängu olek on { $status }; käike see vastu ei võta.
    }
problem-match_not_finished = Kordusmängu saab pakkuda, kui mäng on läbi.
problem-match_not_found = Selle id-ga mängu pole.
problem-match_not_waiting = See mäng ei oota enam mängijaid: liituda või lahkuda saab ainult enne selle algust.
problem-match_over = Mäng on juba läbi.
problem-member_not_found = Sellel mängijal pole klubis kohta (pole liige, pole soovi ega kutset).
problem-method_not_allowed = See ressurss lubab ainult: { $allow }.
problem-name_taken = See nimi on juba võetud.
problem-not_admin = Seda saab teha ainult administraator.
problem-not_chat_moderator = Sõnumi kustutavad ainult selle autor, mängu looja ja serveri administraatorid.
problem-not_club_admin = Seda saavad teha ainult klubi omanik ja administraatorid.
problem-not_club_member = Klubi mängudes osalevad ainult selle liikmed.
problem-not_club_owner = Rolle jagab ainult klubi omanik.
problem-not_enough_players = Alustamiseks on liiga vähe mängijaid: laua taga { $seated }, vaja { $needed }.
problem-not_entered = Sa pole sellesse turniiri registreerunud.
problem-not_found = Aadressil { $path } pole midagi.
problem-not_owner = Seda saab teha ainult looja.
problem-not_seated = Sul pole selles mängus kohta.
problem-not_your_turn = Praegu pole sinu kord: mäng ootab kohti { $awaiting }.
problem-own_account = Administraator ei saa oma kontot blokeerida.
problem-own_admin_role = Administraator ei saa oma rolli ära võtta; seda saab teine administraator (või käsurida).
problem-own_role = Omanik annab klubi üle, tehes omanikuks teise liikme.
problem-owner_must_hand_over = Omanik saab lahkuda pärast seda, kui on teinud omanikuks teise liikme (PUT …/members/{"{"}name{"}"}/role).
problem-password_changed_concurrently = Parooli muutis vahepeal teine päring; logi uuesti sisse.
problem-password_session_required = Selleks on vaja tokenit aadressilt POST /api/v1/auth/token (nimi ja parool), mitte API tokenit.
problem-payload_too_large = Päringu sisu on liiga suur.
problem-player_not_found = Sellise nimega mängijat pole.
problem-position_not_found =
    { $reason ->
        [not_started] See mäng pole veel alanud, seisusid tal veel pole.
       *[beyond] Selles mängus pole seisu { $step }: selle seisud on 0 kuni { $last }.
    }
problem-rate_limited = Liiga palju päringuid sellelt aadressilt või kontolt ({ $limit } minutis); proovi uuesti { $wait } s pärast.
problem-reliability_too_low = See mäng nõuab usaldusväärsust vähemalt { $minimum }; sinu oma on { $ratio } ({ $owed } tähtajast peetud { $met }).
problem-request_not_found = Sellel mängijal pole ootel liitumissoovi.
problem-seat_forfeited = Sinu koht selles mängus on loovutatud; sinult rohkem käike vastu ei võeta.
problem-seat_taken = Koht { $seat } on võetud.
problem-spectators_not_allowed = Seda mängu mängitakse pealtvaatajateta; seda saab vaadata, kui see on läbi.
problem-stale_step = Mäng on juba etapis { $current_step }, mitte { $step }.
problem-token_not_found = Sul pole selle id-ga API tokenit.
problem-too_many_clubs = Ühele kontole saab kuuluda kõige rohkem { $max } klubi; anna enne üks neist kellelegi teisele üle.
problem-too_many_confirmations = Viimase tunni jooksul on saadetud mitu kinnituskirja; proovi hiljem uuesti.
problem-too_many_invitations = Ühel kontol saab olla kõige rohkem { $max } { $max ->
        [one] vastust ootav kutse
       *[other] vastust ootavat kutset
    }; võta enne mõni tagasi või oota vastuseid.
problem-too_many_tokens = Mängijal saab olla kõige rohkem { $max } kehtivat tokenit; tühista enne üks.
problem-too_many_tournaments = Ühel kontol saab olla kõige rohkem { $max } { $max ->
        [one] enda loodud turniir
       *[other] enda loodud turniiri
    }, mis on registreerimisjärgus või käimas; tühista enne üks või oota, kuni mõni lõpeb.
problem-too_many_waiting_matches = Ühel kontol saab olla kõige rohkem { $max } { $max ->
        [one] mängijaid ootav mäng
       *[other] mängijaid ootavat mängu
    }; alusta või tühista enne mõni oma mäng.
problem-too_many_webhooks = Mängijal saab olla kõige rohkem { $max } veebikonksu; kustuta enne üks.
problem-tournament_full = See turniir võtab { $max } { $max ->
        [one] osaleja
       *[other] osalejat
    }.
problem-tournament_not_found = Selle id-ga turniiri pole.
problem-tournament_over = See turniir on läbi.
problem-tournament_started = Sellesse turniiri ei saa enam registreeruda: see on alanud või läbi.
problem-unauthorized = See päring vajab juurdepääsutokenit: Authorization: Bearer <token>.
problem-unknown_bot = Selles mängus pole robotit { $bot }; selle robotid on: { $bots }.
problem-unknown_game = Mängu { $game } pole; mängud on: { $games }.
problem-unknown_invitee = Mängijat { $name } pole, teda ei saa kutsuda.
problem-unsubscribe_link_invalid = See loobumislink ei kehti.
problem-unsupported_media_type = Päringu sisu peab olema JSON (Content-Type: application/json).
problem-weak_password = Paroolis on vähemalt 8 märki (ja kõige rohkem 1024 baiti).
problem-webhook_not_found = Sul pole selle id-ga veebikonksu.
problem-wrong_password = Parool on vale.

problem-invalid_extension = Lisaaega antakse mängu kohale, 1 sekundist kuni nädalani.
problem-own_seat = Koht ei saa endale ise aega anda; seda võib teha mõni teine koht.
problem-seat_not_awaited = Sellel kohal pole praegu oma käiku teha: aega antakse kohale, kes mõtleb.
problem-no_clock = Selles mängus pole kella: pole aega, mida anda.
problem-on_vacation = Oled puhkusel kuni { $until }: tule enne tagasi.
problem-not_on_vacation = Sa ei ole puhkusel.
problem-vacations_off = See server puhkusi ei anna.
problem-invalid_vacation = Puhkus on täisarv päevi, 1 kuni sulle jäänud { $days_left }.
