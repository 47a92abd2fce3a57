// Offline impairment of pcap captures (see docs/guide/replay.md).
#pragma once
