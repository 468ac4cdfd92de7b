import Foundation

extension String {
    /// The text with each `%@` replaced by the name of the device's biometric sensor
    /// ("Touch ID", "your fingerprint"), as the texts that mention it are written.
    func naming(_ sensor: String) -> String {
        StringTable.format(self, [sensor])
    }
}
