import TestSupport
import Testing

/// The fake BlueZ's own tests (`Tests/FakeBlueZ/test_fake_bluez.py`, a
/// dbus-python client driving it through discovery, connection, both notify
/// paths, writes and every fault) run with the Swift suite, so the fake the
/// capture tests trust is itself checked in `make test`.
@Suite struct FakeBlueZSuiteTests {
    @Test func theFakeBlueZPassesItsOwnSuite() throws {
        let report = try FakeBlueZ.runPythonTests()
        #expect(report.contains("OK"), "\(report)")
    }
}
