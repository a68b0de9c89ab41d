### Pošta, kterou server posílá: předměty a řádky textové části (část HTML
### se skládá ze stejných řádků). Prostý text: bez značek.

mail-greeting = Dobrý den, { $name },
mail-signature = — Sealed Orders

mail-confirm-subject = Potvrďte svou e-mailovou adresu
mail-confirm-body = Otevřete tento odkaz a potvrďte, že adresa patří vám. Funguje jednou, { $hours } hodin. Pokud jste adresu nepřidali, tento e-mail ignorujte: nic na ni posláno nebude.

mail-reset-subject = Obnovení hesla
mail-reset-body = Někdo (doufáme, že vy) požádal o obnovení vašeho hesla. Otevřete tento odkaz a zvolte nové; funguje jednou, { $minutes } minut. Nové heslo ukončí všechna přihlášení a API tokeny vašeho účtu. Pokud jste to nebyli vy, e-mail ignorujte.

mail-turn-subject = Jste na tahu: { $game }
mail-turn-body = Ve vaší partii hry { $game } jste na tahu (krok { $step }).
mail-deadline = Tah musíte odehrát do { $deadline }.
mail-open-match = Otevřít partii:

mail-digest-subject =
    { $count ->
        [one] Jedna partie čeká na váš tah
        [few] { $count } partie čekají na váš tah
       *[other] { $count } partií čeká na váš tah
    }
mail-digest-body = Tyto partie čekají na váš tah, nejbližší termín první:
mail-digest-line = { $game }: { $link }
mail-digest-line-deadline = { $game }, termín { $deadline }: { $link }

mail-reminder-subject =
    { $hours ->
        [one] Zbývá hodina na váš tah: { $game }
        [few] Zbývají { $hours } hodiny na váš tah: { $game }
       *[other] Zbývá { $hours } hodin na váš tah: { $game }
    }
mail-reminder-body = Ve vaší partii hry { $game } jste ještě netáhli. Tah musíte odehrát do { $deadline }; potom platí pravidlo partie pro vypršení času.

mail-invitation-subject = { $by } vás zve k partii hry { $game }
mail-invitation-body = { $by } vás zve k partii hry { $game }. Pozvánku přijmete nebo odmítnete na stránce partie nebo v herně.

mail-started-subject = Vaše partie hry { $game } začala
mail-started-body = Vaše partie hry { $game } začala.

mail-finished-subject = Vaše partie hry { $game } skončila
mail-finished-body = Vaše partie hry { $game } skončila. Výsledek a záznam najdete na stránce partie.

mail-why = Tento e-mail dostáváte podle svého nastavení upozornění:
mail-unsubscribe = Tyto e-maily už neposílat:

unsubscribe-title = Odhlásit odběr
unsubscribe-confirm-your_turn = Přestat posílat e-maily, že jste na tahu?
unsubscribe-confirm-deadline_reminders = Přestat posílat připomínky termínů?
unsubscribe-confirm-invitations = Přestat posílat e-maily o pozvánkách?
unsubscribe-confirm-match_started = Přestat posílat e-maily o začátku partie?
unsubscribe-confirm-match_finished = Přestat posílat e-maily o konci partie?
unsubscribe-button = Odhlásit
unsubscribe-done = Hotovo: tyto e-maily už nedostanete. Znovu je zapnete ve svém účtu.
