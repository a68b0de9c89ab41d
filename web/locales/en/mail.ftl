### Mail the server sends: subjects, lines of the text part (the HTML part
### is made from the same lines). Plain text: no markup in these messages.

mail-greeting = Hello { $name },
mail-signature = — Sealed Orders

mail-confirm-subject = Confirm your email address
mail-confirm-body = Open this link to confirm that this address is yours. It works once, for { $hours } hours. If you did not add this address, ignore this mail: nothing will be sent to it.

mail-reset-subject = Reset your password
mail-reset-body = Somebody (we hope you) asked to reset your password. Open this link to choose a new one; it works once, for { $minutes } minutes. Setting a new password ends every session and API token of your account. If it was not you, ignore this mail.

mail-turn-subject = Your move in { $game }
mail-turn-body = It is your turn in your { $game } match (step { $step }).
mail-deadline = Your move is due by { $deadline }.
mail-open-match = Open the match:

mail-digest-subject =
    { $count ->
        [one] One match awaits your move
       *[other] { $count } matches await your move
    }
mail-digest-body = These matches await your move, the soonest deadline first:
mail-digest-line = { $game }: { $link }
mail-digest-line-deadline = { $game }, due by { $deadline }: { $link }

mail-reminder-subject =
    { $hours ->
        [one] One hour left for your move in { $game }
       *[other] { $hours } hours left for your move in { $game }
    }
mail-reminder-body = You have not moved yet in your { $game } match. Your move is due by { $deadline }; after that the match's timeout rule applies.

mail-invitation-subject = { $by } invites you to a { $game } match
mail-invitation-body = { $by } invites you to a match of { $game }. Accept or decline it from the match page or your lobby.

mail-started-subject = Your { $game } match has started
mail-started-body = Your match of { $game } has started.

mail-finished-subject = Your { $game } match has ended
mail-finished-body = Your match of { $game } has ended. The result and the replay are on the match page.

mail-why = You get this mail because of your notification settings:
mail-unsubscribe = Stop this kind of mail:

unsubscribe-title = Unsubscribe
unsubscribe-confirm-your_turn = Stop the mails telling you it is your turn?
unsubscribe-confirm-deadline_reminders = Stop the deadline reminders?
unsubscribe-confirm-invitations = Stop the mails about invitations?
unsubscribe-confirm-match_started = Stop the mails when a match starts?
unsubscribe-confirm-match_finished = Stop the mails when a match ends?
unsubscribe-button = Unsubscribe
unsubscribe-done = Done: you will not get these mails any more. You can turn them on again in your account.
