import Foundation
import GangwayScreens
import GangwayServices
import Testing

@Suite("The services' messages come from the string table")
struct ServiceTextsTests {
    @Test func aFailureReadsInTheTablesLanguageAndTheAppsWords() {
        let german = StringTable(locale: Locale(identifier: "de_DE"))
        StringTable.withTable(german) {
            #expect(ServiceError.unreachable.summary == "Der Server ist nicht erreichbar.")
            #expect(ServiceError.unreachable.advice == "Prüfen Sie die Netzwerkverbindung und versuchen Sie es erneut.")
            #expect(ServiceError.sessionExpired.sessionEndReason == "Ihre Sitzung ist beendet.")
            // An activation's failures too, and an unknown domain.
            #expect(ConfigurationError.expired.summary == "Dieser Aktivierungslink ist abgelaufen.")
            #expect(
                ConfigurationError.unknownEmailDomain.summary == "Für diese E-Mail-Adresse ist keine App eingerichtet."
            )
            #expect(ConfigurationError.notAnImage.advice.contains("PNG-Bildes"))
        }
        StringTable.withTable(german.overriding(["service.unreachable.summary": "Kein Netz am Stand."])) {
            #expect(ServiceError.unreachable.summary == "Kein Netz am Stand.")
        }
        #expect(ServiceError.unreachable.summary == "The server cannot be reached.")
        // A client's call names the server it could not reach.
        let named = ServiceError.unreachable(URL(string: "https://mobile.airline.example")!)
        #expect(named == .unreachable)
        #expect(named.summary == "The server at https://mobile.airline.example cannot be reached.")
    }
}
