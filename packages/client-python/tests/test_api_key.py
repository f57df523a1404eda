"""The API key format of the contract: shape and CRC-32 checksum, checked locally."""

from __future__ import annotations

import pytest

from svc_client._api_key import key_type_of


def test_accepts_the_contract_examples_and_derives_the_key_type() -> None:
    assert key_type_of("svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN") == "sk"
    assert key_type_of("svp_y6vK111fY0yuOhDRk1XEmSyVZEMEhEmTyI1nZ71t") == "pk"


@pytest.mark.parametrize(
    "key",
    [
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvM",  # the contract's wrong checksum
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHv",  # one character short
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvNN",  # one too many
        "svx_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN",  # unknown prefix
        "svs-8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN",
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHv\N{LATIN SMALL LETTER N WITH TILDE}",
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN\n",
        "",
    ],
)
def test_rejects_other_shapes_and_wrong_checksums(key: str) -> None:
    assert key_type_of(key) is None


def test_a_changed_character_in_the_random_part_breaks_the_checksum() -> None:
    valid = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN"
    changed = valid[:10] + ("A" if valid[10] != "A" else "B") + valid[11:]
    assert key_type_of(changed) is None
