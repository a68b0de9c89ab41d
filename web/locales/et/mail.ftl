### Server saadab need kirjad: teemad ja tekstiosa read (HTML-osa tehakse
### samadest ridadest). Lihttekst: märgendeid pole.

mail-greeting = Tere, { $name }!
mail-signature = — Sealed Orders

mail-confirm-subject = Kinnita oma e-posti aadress
mail-confirm-body = Ava see link, et kinnitada, et aadress on sinu. See töötab üks kord, { $hours } tundi. Kui sa seda aadressi ei lisanud, jäta kiri tähelepanuta: sellele aadressile ei saadeta midagi.

mail-reset-subject = Parooli lähtestamine
mail-reset-body = Keegi (loodetavasti sina) palus sinu parooli lähtestada. Ava see link ja vali uus parool; see töötab üks kord, { $minutes } minutit. Uus parool lõpetab kõik sinu konto seansid ja API-võtmed. Kui see polnud sina, jäta kiri tähelepanuta.

mail-turn-subject = Sinu käik: { $game }
mail-turn-body = Sinu mängus { $game } on sinu käik (samm { $step }).
mail-deadline = Käik tuleb teha hiljemalt { $deadline }.
mail-open-match = Ava mäng:

mail-digest-subject =
    { $count ->
        [one] Üks mäng ootab sinu käiku
       *[other] { $count } mängu ootavad sinu käiku
    }
mail-digest-body = Need mängud ootavad sinu käiku, lähim tähtaeg eespool:
mail-digest-line = { $game }: { $link }
mail-digest-line-deadline = { $game }, tähtaeg { $deadline }: { $link }

mail-reminder-subject =
    { $hours ->
        [one] Sinu käiguni mängus { $game } on jäänud üks tund
       *[other] Sinu käiguni mängus { $game } on jäänud { $hours } tundi
    }
mail-reminder-body = Sa pole oma mängus { $game } veel käiku teinud. Käik tuleb teha hiljemalt { $deadline }; pärast seda kehtib mängu ajalõpu reegel.

mail-invitation-subject = { $by } kutsub sind mängima: { $game }
mail-invitation-body = { $by } kutsub sind mängu { $game }. Kutse saad vastu võtta või tagasi lükata mängu lehel või ootesaalis.

mail-started-subject = Sinu mäng { $game } algas
mail-started-body = Sinu mäng { $game } algas.

mail-finished-subject = Sinu mäng { $game } lõppes
mail-finished-body = Sinu mäng { $game } lõppes. Tulemus ja kordus on mängu lehel.

mail-why = Saad selle kirja oma teavitusseadete järgi:
mail-unsubscribe = Ära saada enam selliseid kirju:

unsubscribe-title = Loobu kirjadest
unsubscribe-confirm-your_turn = Kas lõpetada kirjad, mis teatavad sinu käigust?
unsubscribe-confirm-deadline_reminders = Kas lõpetada tähtaja meeldetuletused?
unsubscribe-confirm-invitations = Kas lõpetada kirjad kutsete kohta?
unsubscribe-confirm-match_started = Kas lõpetada kirjad mängu algusest?
unsubscribe-confirm-match_finished = Kas lõpetada kirjad mängu lõpust?
unsubscribe-button = Loobu
unsubscribe-done = Valmis: neid kirju sa enam ei saa. Saad need oma kontol uuesti sisse lülitada.
